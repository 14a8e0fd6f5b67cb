import type { createBrowserRouter } from "react-router";
import type { PublicConfig } from "../../shared/config/public-config";
import { documentMeta } from "../../shared/routes/document-meta";

/** Keeps <title> and the meta description in step with client-side navigations. */
export function syncDocumentMeta(router: ReturnType<typeof createBrowserRouter>, config: PublicConfig): void {
  router.subscribe((state) => {
    if (state.navigation.state !== "idle") return;
    const meta = documentMeta({
      matches: state.matches,
      loaderData: state.loaderData,
      errors: state.errors,
      siteName: config.siteName,
      supportEmail: config.supportEmail,
    });
    document.title = meta.title;
    document.querySelector('meta[name="description"]')?.setAttribute("content", meta.description);
  });
}
