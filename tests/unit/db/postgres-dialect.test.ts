import { describe, expect, it } from "vitest";
import { toTsQuery } from "../../../server/db/dialect/postgres";
import { databaseTarget, describeTarget } from "../../../server/db/target";

describe("toTsQuery", () => {
  it("makes every word required and the last token a prefix", () => {
    expect(toTsQuery("remote code exec")).toBe("remote & code & exec:*");
  });

  it("keeps a word's tokens together as a phrase, as FTS5 does with a quoted word", () => {
    expect(toTsQuery("pan-os CVE-2024-3400")).toBe("pan <-> os & cve <-> 2024 <-> 3400:*");
  });

  it("leaves no tsquery operator of the input in the query", () => {
    const query = toTsQuery("a|b & !c <-> (d):* 'e'")!;
    expect(query).toBe("a <-> b & c & d & e:*");
  });

  it("lowercases letters beyond ASCII and keeps them", () => {
    expect(toTsQuery("Café ÉTÉ")).toBe("café & été:*");
  });

  it("has no query for text without letters or digits, control characters included", () => {
    expect(toTsQuery(" -- \u0000 !! ")).toBeNull();
  });
});

describe("databaseTarget", () => {
  it("chooses PostgreSQL when DATABASE_URL is set, and never shows its password", () => {
    const target = databaseTarget({ DATABASE_PATH: "./data/x.sqlite", DATABASE_URL: "postgres://radar:s3cret@db:5432/radar", DATABASE_POOL_SIZE: 7 });
    expect(target).toEqual({ kind: "postgres", url: "postgres://radar:s3cret@db:5432/radar", poolSize: 7 });
    expect(describeTarget(target)).not.toContain("s3cret");
  });

  it("chooses the SQLite file otherwise", () => {
    expect(databaseTarget({ DATABASE_PATH: "/srv/radar.sqlite", DATABASE_URL: undefined, DATABASE_POOL_SIZE: 10 })).toEqual({
      kind: "sqlite",
      path: "/srv/radar.sqlite",
    });
  });
});
