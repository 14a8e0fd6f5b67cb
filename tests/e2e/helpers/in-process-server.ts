import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestApp, type TestApp, type TestAppOptions } from "../../helpers/test-app";

export interface InProcessServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  testApp: TestApp;
  close(): Promise<void>;
}

/**
 * The application built in the test's own process (tests/helpers/test-app.ts:
 * the real app on dist/'s client build and a fresh SQLite file) listening on a
 * loopback port, for the few browser tests that need what only a test can
 * give it: a route table of its own (`pages`), or a database taken away.
 * The browser loads the same client bundle as from the production server.
 */
export async function startInProcessServer(options: TestAppOptions = {}): Promise<InProcessServer> {
  const testApp = await createTestApp(options);
  const server: Server = testApp.app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    testApp,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await testApp.close().catch(() => undefined);
    },
  };
}
