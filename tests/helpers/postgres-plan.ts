import { CompiledQuery, sql, type Kysely } from "kysely";

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/** Planner settings a plan test prices things out with, e.g. `enable_seqscan` or `enable_sort`. */
export type PlannerSwitch = "enable_seqscan" | "enable_sort";

/**
 * PostgreSQL's plan for `query`, flattened: each node's type and, for index
 * scans, the index. `off` prices out what a test's small database would make
 * cheap but the full import does not (sequential scans), or what only an
 * index can spare (sorts): whatever is left in the plan then had no other way.
 */
export async function postgresPlanNodes(db: Kysely<any>, query: CompiledQuery, off: readonly PlannerSwitch[] = []): Promise<string[]> {
  const { rows } = await db.transaction().execute(async (trx) => {
    for (const setting of off) await sql`select set_config(${setting}, 'off', true)`.execute(trx);
    return trx.executeQuery<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]));
  });
  const nodes: string[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node["Index Name"] ? `${node["Node Type"]} ${node["Index Name"]}` : node["Node Type"]);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(rows[0]!["QUERY PLAN"][0]!.Plan);
  return nodes;
}
