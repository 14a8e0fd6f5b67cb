import type { Express } from "express";
import { describe, expect, it } from "vitest";
import { listen, ListenError } from "../../../server/http/listen";

/** An Express app whose listen reports `code` as Express 5 does: through the callback. */
function failingApp(code: string): Express {
  const error = Object.assign(new Error(`listen ${code}`), { code });
  return { listen: (_port: number, _host: string, callback: (error?: Error) => void) => (setImmediate(() => callback(error)), {}) } as unknown as Express;
}

describe("listen", () => {
  it.each([
    ["EADDRINUSE", "PORT=8080: 10.0.0.5:8080 is already in use"],
    ["EADDRNOTAVAIL", "HOST=10.0.0.5: this machine has no such address"],
    ["EACCES", "PORT=8080: permission denied binding 10.0.0.5:8080"],
    ["ENOTFOUND", "HOST=10.0.0.5: the name does not resolve"],
    ["EINVAL", "cannot listen on 10.0.0.5:8080 (HOST=10.0.0.5, PORT=8080): listen EINVAL"],
  ])("turns %s into a ListenError naming the variable to change", async (code, message) => {
    const failure = listen(failingApp(code), 8080, "10.0.0.5");
    await expect(failure).rejects.toBeInstanceOf(ListenError);
    await expect(failure).rejects.toThrow(message);
  });
});
