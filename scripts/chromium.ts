/** Debian's Chromium, which the browser tests and the quality scripts drive (npm cannot install a browser here). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Flags this machine needs (docs in tests/e2e/README.md): headless without a
 * sandbox or GPU, and none of Chromium's own background traffic, which the
 * closed network here refuses by the dozen.
 */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
