import type { SourceStatus } from "../../types/source-status";
import { dataDate } from "./source-verdict";

/** What dates a feed's data (dataDate), its day kept on one line; `fallback` before the first import. */
export function DataDate({ source, fallback }: { source: SourceStatus; fallback: string }) {
  const date = dataDate(source);
  if (date === null) return <>{fallback}</>;
  if (date.day === null) return <>{date.label}</>;
  return (
    <>
      {date.label}{" "}
      <time className="nowrap" dateTime={date.day}>
        {date.day}
      </time>
    </>
  );
}
