import type { KyselyPlugin, QueryId } from "kysely";

/**
 * A Kysely plugin that times every query from its compilation to its
 * result: the database's share of a request, whichever connection (the read
 * pool's workers in production) ran it. A query that fails is not timed; it
 * shows as an error in the log and the request's status.
 */
export function queryTimer(observe: (seconds: number, statement: string) => void): KyselyPlugin {
  const started = new WeakMap<QueryId, { at: bigint; statement: string }>();
  return {
    transformQuery({ node, queryId }) {
      started.set(queryId, { at: process.hrtime.bigint(), statement: node.kind.replace(/QueryNode$/, "").toLowerCase() });
      return node;
    },
    async transformResult({ result, queryId }) {
      const start = started.get(queryId);
      if (start) observe(Number(process.hrtime.bigint() - start.at) / 1e9, start.statement);
      return result;
    },
  };
}
