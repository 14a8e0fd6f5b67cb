import sax from "sax";
import type { CweEntry } from "./records";
import { accepted, rejected, type ParseResult } from "../toolkit/result";
import { textChunks, type FeedInput } from "../toolkit/stream";

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

const KINDS: Record<string, CweEntry["kind"]> = { Weakness: "weakness", Category: "category", View: "view" };

/**
 * MITRE's CWE catalogue XML (cwec_v*.xml), streamed with sax: only the
 * Weakness, Category and View start tags matter (id, name, abstraction,
 * status), so the tens of megabytes of descriptions are never held.
 */
export async function* parseCweXml(input: FeedInput, name: string, onPublished?: (day: string) => void): AsyncGenerator<ParseResult<CweEntry>> {
  const parser = sax.parser(true, { trim: false, normalize: false });
  let pending: Array<ParseResult<CweEntry>> = [];
  let sawCatalog = false;
  parser.onopentag = (tag) => {
    if (tag.name === "Weakness_Catalog") {
      sawCatalog = true;
      // The catalogue's release day: `Date="2024-07-16"`.
      const date = tag.attributes.Date;
      if (typeof date === "string" && ISO_DAY.test(date)) onPublished?.(date);
    }
    const kind = KINDS[tag.name];
    if (!kind) return;
    const attr = (key: string): string | null => {
      const value = tag.attributes[key];
      return typeof value === "string" && value !== "" ? value : null;
    };
    const id = attr("ID");
    const title = attr("Name");
    const location = `${name}:${parser.line + 1}`;
    if (!id || !/^\d+$/.test(id) || !title) {
      pending.push(rejected(location, `${tag.name} without a numeric ID and a Name`));
      return;
    }
    pending.push(accepted({ id: `CWE-${id}`, name: title, kind, abstraction: attr("Abstraction"), status: attr("Status") }));
  };
  parser.onerror = (error) => {
    throw new Error(`${name}: invalid XML (${error.message.split("\n")[0]})`);
  };
  for await (const chunk of textChunks(input)) {
    parser.write(chunk);
    yield* pending;
    pending = [];
  }
  parser.close();
  yield* pending;
  if (!sawCatalog) throw new Error(`${name}: no <Weakness_Catalog> element, not a CWE catalogue`);
}
