import { escapeHtml } from "../ssr/serialize";

export interface AtomEntry {
  id: string;
  title: string;
  link: string;
  updated: string;
  published?: string | null;
  summary: string;
  categories?: string[];
}

export interface AtomFeed {
  id: string;
  title: string;
  selfLink: string;
  alternateLink: string;
  updated: string;
  entries: AtomEntry[];
}

const xml = escapeHtml;

function isoTime(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? new Date(0).toISOString() : new Date(time).toISOString();
}

/** An Atom 1.0 document (RFC 4287); every text and attribute is escaped. */
export function renderAtom(feed: AtomFeed): string {
  const entries = feed.entries.map((entry) =>
    [
      "<entry>",
      `<id>${xml(entry.id)}</id>`,
      `<title>${xml(entry.title)}</title>`,
      `<link rel="alternate" type="text/html" href="${xml(entry.link)}"/>`,
      `<updated>${isoTime(entry.updated)}</updated>`,
      entry.published ? `<published>${isoTime(entry.published)}</published>` : "",
      ...(entry.categories ?? []).map((term) => `<category term="${xml(term)}"/>`),
      `<summary type="text">${xml(entry.summary)}</summary>`,
      "</entry>",
    ].join(""),
  );
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `<id>${xml(feed.id)}</id>`,
    `<title>${xml(feed.title)}</title>`,
    `<link rel="self" type="application/atom+xml" href="${xml(feed.selfLink)}"/>`,
    `<link rel="alternate" type="text/html" href="${xml(feed.alternateLink)}"/>`,
    `<updated>${isoTime(feed.updated)}</updated>`,
    "<author><name>Threat Radar</name></author>",
    ...entries,
    "</feed>",
  ].join("\n");
}
