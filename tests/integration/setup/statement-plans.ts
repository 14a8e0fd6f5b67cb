import { afterAll } from "vitest";
import { watchStatementPlans } from "../../helpers/statement-plans";

/**
 * Every SQLite statement an integration test file runs in its own process
 * (imports through syncSource, the services, the migrations) is planned
 * once; a file fails if any of them reads a whole table for each row of
 * another (tests/helpers/statement-plans.ts). Plans on a test's small tables
 * are those of the full import where it matters: without statistics SQLite
 * assumes every table is large, and uses any index that fits.
 */
const watch = watchStatementPlans();

afterAll(() => {
  watch.stop();
  const found = watch.correlated();
  if (found.length > 0) {
    throw new Error(`statements that scan a table for each row of another:\n${found.map(({ sql, plan }) => `${sql}\n  ${plan.join("\n  ")}`).join("\n")}`);
  }
});
