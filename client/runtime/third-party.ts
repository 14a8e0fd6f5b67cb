/** The nonce of this page, which scripts we add must carry to pass the CSP. */
export function pageNonce(): string {
  return document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce ?? "";
}

export function appendScript(src: string, attributes: { id?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.nonce = pageNonce();
    if (attributes.id) script.id = attributes.id;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`Could not load ${src}`));
    document.head.append(script);
  });
}
