import SQLite from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { applyWritePragmas } from "../server/db/sqlite/pragmas";
import { IMPORT_CACHE_KIB } from "../server/pipeline/engine/store";

const USAGE = `Usage: npm run bench:write-floor -- --db PATH

What SQLite alone costs to write what a full import stored, whatever the
import engine does before it: every table of PATH (a full import, only
read) is copied into a fresh file with the import's pragmas, its rows
first and then its indexes one by one, and each full-text index is built
afterwards. Prints wall and CPU seconds per step and per group (the IOC
tables, the CVE tables, the rest), to set beside \`npm run bench:import\`'s
times for the sources that fill them. Rows appended and each index built
once by sorting is the cheapest order SQLite has, so an import into SQLite
is not expected to write the same rows and indexes in less.`;

const { values } = parseArgs({ options: { db: { type: "string" }, help: { type: "boolean", short: "h" } } });
if (values.help || !values.db) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 2);
}
const sourcePath = resolve(values.db);
if (!existsSync(sourcePath)) {
  console.error(`No database at ${sourcePath}\n\n${USAGE}`);
  process.exit(2);
}

interface SchemaObject {
  type: "table" | "index";
  name: string;
  table: string;
  sql: string;
}

const dir = mkdtempSync(join(tmpdir(), "threat-radar-write-floor-"));
const target = new SQLite(join(dir, "floor.sqlite"));
applyWritePragmas(target);
target.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
target.pragma("temp_store = FILE");
target.prepare("attach database ? as source").run(sourcePath);

const schema = target
  .prepare<[], SchemaObject>(
    "select type, name, tbl_name as \"table\", sql from source.sqlite_schema where sql is not null and type in ('table', 'index') and name not like 'sqlite!_%' escape '!'",
  )
  .all();
const fullText = schema.filter((object) => /^create virtual table/i.test(object.sql));
/** FTS5's own tables: created with the virtual table, filled by building it. */
const shadows = new Set(schema.filter((object) => fullText.some((fts) => object.name.startsWith(`${fts.name}_`))).map((object) => object.name));
const tables = schema.filter((object) => object.type === "table" && !fullText.includes(object) && !shadows.has(object.name));
const indexes = schema.filter((object) => object.type === "index" && !shadows.has(object.table));

/** Contentless full-text indexes, filled as the import fills them (server/db/dialect/sqlite.ts); the others rebuild from their table. */
const CONTENTLESS_FILLS: Record<string, string> = {
  // In id order, as the import adds them: out of order, FTS5 flushes far more often (19 CPU s against 8 here).
  indicators_fts: "insert into indicators_fts (rowid, value) select id, value from indicators order by id",
};

const groupOf = (table: string) =>
  /^(cve|epss|kev)/.test(table) ? "CVE" : /^(indicator|tags$|sighting_references$|family_aliases$)/.test(table) ? "IOC" : "other";
const steps: Array<{ step: string; group: string; wallS: number; cpuS: number }> = [];

function measure(step: string, table: string, work: () => void): void {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  work();
  // Each step's pages reach the database file before the next starts, as the import's checkpoints make them.
  target.pragma("wal_checkpoint(truncate)");
  const cpu = process.cpuUsage(cpuBefore);
  steps.push({ step, group: groupOf(table), wallS: (performance.now() - started) / 1000, cpuS: (cpu.user + cpu.system) / 1e6 });
}

try {
  for (const table of tables) {
    measure(`rows of ${table.name}`, table.name, () => {
      target.exec(table.sql);
      target.exec(`insert into main."${table.name}" select * from source."${table.name}"`);
    });
  }
  for (const index of indexes) measure(`index ${index.name}`, index.table, () => target.exec(index.sql));
  for (const fts of fullText) {
    measure(`full-text ${fts.name}`, fts.name, () => {
      target.exec(fts.sql);
      const fill = CONTENTLESS_FILLS[fts.name];
      if (/content\s*=\s*''/i.test(fts.sql) && !fill) throw new Error(`${fts.name}: a contentless index this benchmark does not know how to fill`);
      target.exec(fill ?? `insert into "${fts.name}" ("${fts.name}") values ('rebuild')`);
    });
  }
} finally {
  target.close();
  rmSync(dir, { recursive: true, force: true });
}

const round = (n: number) => n.toFixed(2);
console.log(`Write floor of ${sourcePath}: each table's rows, then each index, then each full-text index, into a fresh file`);
console.table(steps.map((s) => ({ step: s.step, group: s.group, "wall s": round(s.wallS), "cpu s": round(s.cpuS) })));
const groups = [...new Set(steps.map((s) => s.group))];
console.table(
  [...groups, "all"].map((group) => {
    const of = steps.filter((s) => group === "all" || s.group === group);
    return { group, "wall s": round(of.reduce((sum, s) => sum + s.wallS, 0)), "cpu s": round(of.reduce((sum, s) => sum + s.cpuS, 0)) };
  }),
);
