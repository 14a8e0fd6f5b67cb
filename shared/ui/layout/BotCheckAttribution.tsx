/**
 * reCAPTCHA's badge is hidden (see the stylesheet), which Google allows only
 * when this text is shown in the user flow instead.
 */
export function BotCheckAttribution() {
  return (
    <p className="bot-check-attribution">
      This site is protected by reCAPTCHA and the Google{" "}
      <a href="https://policies.google.com/privacy" rel="noopener noreferrer" target="_blank" data-allow-external="">
        Privacy Policy
      </a>{" "}
      and{" "}
      <a href="https://policies.google.com/terms" rel="noopener noreferrer" target="_blank" data-allow-external="">
        Terms of Service
      </a>{" "}
      apply.
    </p>
  );
}
