import SQLite from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyFts5Index } from "../../../server/db/sqlite/fts5-copy";
import { toTrigramQuery } from "../../../server/db/dialect/sqlite";

const DEFINITION = "using fts5(value, content='', contentless_delete=1, detail=none, tokenize='trigram')";
const VALUES = ["evil.example.com", "hxxp://login-update.example.net/a", "203.0.113.7", "login.example.org", "cdn.updates.example"];

let dir: string;
let path: string;
let db: SQLite.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fts5-copy-"));
  path = join(dir, "db.sqlite");
  db = new SQLite(path);
  db.pragma("journal_mode = WAL");
  db.exec(`create virtual table served_fts ${DEFINITION}; create virtual table next_fts ${DEFINITION}`);
  const insert = db.prepare("insert into served_fts (rowid, value) values (?, ?)");
  VALUES.forEach((value, i) => insert.run(i + 1, value));
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const matches = (table: string, text: string) =>
  db.prepare<[string], number>(`select rowid from ${table} where ${table} match ? order by rowid`).pluck().all(toTrigramQuery(text));

describe("copyFts5Index", () => {
  it("gives the empty table the same index, which this connection then reads and extends, though it had read it empty", () => {
    // The writer's connection has read the empty table: FTS5 has cached its structure.
    expect(matches("next_fts", "example")).toEqual([]);

    expect(copyFts5Index(path, "served_fts", "next_fts")).toBe(true);

    for (const text of ["example", "login", "113.7", "upd", "nothing-like-it"]) expect(matches("next_fts", text)).toEqual(matches("served_fts", text));
    expect(matches("next_fts", "login")).toEqual([2, 4]);
    db.prepare("insert into next_fts (rowid, value) values (?, ?)").run(6, "login.example.io");
    db.prepare("delete from next_fts where rowid = ?").run(1);
    expect(matches("next_fts", "login")).toEqual([2, 4, 6]);
    expect(matches("next_fts", "evil")).toEqual([]);
    expect(() => db.exec("insert into next_fts (next_fts) values ('integrity-check')")).not.toThrow();
    // The served index is untouched.
    expect(matches("served_fts", "login")).toEqual([2, 4]);
    expect(matches("served_fts", "evil")).toEqual([1]);
  });

  it("copies nothing and says so when the two are defined differently", () => {
    db.exec("create virtual table other_fts using fts5(value, content='', detail=none, tokenize='trigram')");
    expect(copyFts5Index(path, "served_fts", "other_fts")).toBe(false);
    expect(matches("other_fts", "example")).toEqual([]);
    expect(copyFts5Index(path, "no_such_fts", "next_fts")).toBe(false);
  });
});
