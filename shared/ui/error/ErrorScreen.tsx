import { isRouteErrorResponse, useRouteError } from "react-router";
import { describeError } from "../../error-catalogue";
import { useBoot } from "../boot/boot-context";
import { Logo } from "../layout/Logo";

interface StatusError {
  statusCode: number;
  message?: string;
}

function isStatusError(error: unknown): error is StatusError {
  return typeof error === "object" && error !== null && typeof (error as StatusError).statusCode === "number";
}

function readError(error: unknown): { statusCode: number; detail: string | null } {
  if (isRouteErrorResponse(error)) {
    const message = (error.data as { message?: unknown } | null)?.message;
    return { statusCode: error.status, detail: typeof message === "string" ? message : null };
  }
  if (isStatusError(error)) return { statusCode: error.statusCode, detail: error.message ?? null };
  return { statusCode: 500, detail: null };
}

/** Replaces the layout and the page whenever a route raises an error. */
export function ErrorScreen() {
  const { config } = useBoot();
  const { statusCode, detail } = readError(useRouteError());
  const { title, description } = describeError(statusCode, config.supportEmail);
  return (
    <main className="error-screen" id="main-content" data-status={statusCode}>
      <Logo size={56} />
      <p className="error-screen__code">{statusCode}</p>
      <h1 className="error-screen__title">{title}</h1>
      <p className="error-screen__description">{description}</p>
      {statusCode === 404 && detail ? <p className="error-screen__detail">{detail}</p> : null}
      <a className="button button--primary" href={config.oldBaseUrl} data-allow-external="">
        Back to Home
      </a>
    </main>
  );
}
