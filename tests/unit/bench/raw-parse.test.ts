import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { rawParseFiles } from "../../../bench/raw-parse";

const dir = mkdtempSync(join(tmpdir(), "raw-parse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, body: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

async function tarball(files: Record<string, string>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, body] of Object.entries(files)) pack.entry({ name }, body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("rawParseFiles (issue 11's raw parse)", () => {
  it("splits a gzipped tar's members into lines, as maltrail's trails are counted", async () => {
    const archive = await tarball({ "trails/static/malware/a.txt": "# c\nevil.example\n1.2.3.4:80\n", "trails/static/b.txt": "x.example\n" });
    expect(await rawParseFiles([write("trails.tar.gz", gzipSync(archive))])).toBe(4);
  });

  it("parses JSON lines, whole JSON documents, CSV rows and XML elements", async () => {
    const jsonl = write("cves.jsonl.gz", gzipSync('{"id":1}\n{"id":2}\n{"id":3}\n'));
    const json = write("kev.json", '{"vulnerabilities":[{"cveID":"CVE-2024-1"}]}');
    const csv = write("epss.csv", 'cve,epss\nCVE-2024-1,"0.5"\n');
    const xml = write("cwe.xml", "<Weaknesses><Weakness ID='79'/><Weakness ID='89'/></Weaknesses>");
    expect(await rawParseFiles([jsonl])).toBe(3);
    expect(await rawParseFiles([json])).toBe(1);
    expect(await rawParseFiles([csv])).toBe(2);
    expect(await rawParseFiles([xml])).toBe(3);
    expect(await rawParseFiles([jsonl, json, csv, xml])).toBe(9);
  });

  it("fails on a file that is not what its name says, like the reader would", async () => {
    await expect(rawParseFiles([write("broken.jsonl", '{"id":1}\n{"id":\n')])).rejects.toThrow(SyntaxError);
  });
});
