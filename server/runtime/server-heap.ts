/**
 * Node flags of the web server process, in every command that starts it: the
 * npm scripts `start` and `serve`, the Dockerfile's CMD, the systemd unit
 * (tests/unit/tooling/server-command.test.ts keeps them equal), and the
 * benchmarks and tests that start the built server.
 *
 * V8 sizes the young generation for the allocation rate it sees, and keeps
 * what it grew: after one round of page views on the full snapshot import it
 * had grown to two 64 MB semi-spaces and the server held 400 MB of resident
 * memory, of which 55 MB was live heap. Capped at 8 MB each, the same round
 * leaves it at about 260 MB, and requests per second under load are the same
 * within the noise (docs/performance.md, "Memory of the web process").
 */
export const SERVER_NODE_FLAGS: readonly string[] = ["--max-semi-space-size=8"];
