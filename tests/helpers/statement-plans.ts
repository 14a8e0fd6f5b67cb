import SQLite from "better-sqlite3";

/** A row of SQLite's `EXPLAIN QUERY PLAN`: a node of the plan's tree. */
interface PlanRow {
  id: number;
  parent: number;
  detail: string;
}

export interface PlannedStatement {
  sql: string;
  plan: string[];
}

/**
 * The nodes of `plan` that read a whole table once for each row of an outer
 * query: a `SCAN` beneath a correlated subquery. Such a statement costs the
 * product of two tables' sizes; on test data that is nothing, on the full
 * import it was an 18-minute delisting.
 */
function correlatedScans(plan: readonly PlanRow[]): string[] {
  const byId = new Map(plan.map((row) => [row.id, row]));
  const underCorrelated = (row: PlanRow): boolean => {
    for (let parent = byId.get(row.parent); parent; parent = byId.get(parent.parent)) {
      if (parent.detail.startsWith("CORRELATED")) return true;
    }
    return false;
  };
  return plan.filter((row) => /^SCAN (?!CONSTANT ROW)/.test(row.detail) && underCorrelated(row)).map((row) => row.detail);
}

type Execute = (this: SQLite.Statement, ...args: unknown[]) => unknown;
const EXECUTORS = ["run", "get", "all", "iterate"] as const;

/**
 * Watches every statement this process's SQLite connections execute (not
 * worker threads' or child processes'), planning each distinct text once,
 * with the parameters of its first execution, on the connection that runs it
 * and just before it runs: staging tables exist only during their import.
 * `correlated` lists the statements with a correlated scan; `planOf` gives
 * the plan of each statement seen whose text matches.
 */
export function watchStatementPlans() {
  const planned = new Map<string, string[]>();
  const correlated: PlannedStatement[] = [];
  const probe = new SQLite(":memory:");
  const prototype = Object.getPrototypeOf(probe.prepare("select 1")) as Record<(typeof EXECUTORS)[number], Execute>;
  probe.close();
  const originals = EXECUTORS.map((name) => [name, prototype[name]] as const);
  const plan = (statement: SQLite.Statement, args: unknown[]) => {
    const text = statement.source.replace(/\s+/g, " ").trim();
    if (planned.has(text) || !/^(with|select|insert|update|delete|create table)\b/i.test(text)) return;
    let rows: PlanRow[];
    try {
      rows = statement.database.prepare(`explain query plan ${statement.source}`).all(...args) as PlanRow[];
    } catch {
      return; // A statement EXPLAIN refuses: there is no plan to check.
    }
    const details = rows.map((row) => row.detail);
    planned.set(text, details);
    if (correlatedScans(rows).length > 0) correlated.push({ sql: text, plan: details });
  };
  for (const [name, original] of originals) {
    prototype[name] = function (this: SQLite.Statement, ...args: unknown[]) {
      plan(this, args);
      return original.apply(this, args);
    };
  }
  return {
    correlated: (): readonly PlannedStatement[] => correlated,
    planOf: (pattern: RegExp): PlannedStatement[] => [...planned].filter(([sql]) => pattern.test(sql)).map(([sql, plan]) => ({ sql, plan })),
    stop() {
      for (const [name, original] of originals) prototype[name] = original;
    },
  };
}
