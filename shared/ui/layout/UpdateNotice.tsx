import { useUpdateAvailable } from "../../state/update-available";

export function UpdateNotice() {
  if (!useUpdateAvailable()) return null;
  return (
    <div className="update-notice" role="status" data-testid="update-notice">
      A new version of this site is available; it will load on your next navigation.{" "}
      <button type="button" className="button button--link" onClick={() => window.location.reload()}>
        Reload now
      </button>
    </div>
  );
}
