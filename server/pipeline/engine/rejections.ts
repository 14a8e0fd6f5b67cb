import { appendFileSync } from "node:fs";
import type { Logger } from "pino";
import { reasonKind } from "../../feeds/toolkit/result";

const EXAMPLES = 5;

interface Reason {
  count: number;
  examples: string[];
}

/**
 * Records a feed rejected, summarised per reason: a feed with 100,000 bad
 * lines logs one line per reason with its count and a few locations, not
 * 100,000 warnings. Every location goes to debug level, and to a file when
 * one is given (`npm run sync -- --rejects FILE`).
 */
export class Rejections {
  readonly #reasons = new Map<string, Reason>();
  #total = 0;

  constructor(
    private readonly logger: Logger,
    private readonly file: string | null = null,
  ) {}

  add(location: string, reason: string): void {
    this.#total += 1;
    const key = reasonKind(reason);
    const entry = this.#reasons.get(key) ?? { count: 0, examples: [] };
    entry.count += 1;
    if (entry.examples.length < EXAMPLES) entry.examples.push(`${location}: ${reason}`);
    this.#reasons.set(key, entry);
    this.logger.debug({ location, reason }, "rejected record");
    if (this.file) appendFileSync(this.file, `${location}\t${reason}\n`);
  }

  get total(): number {
    return this.#total;
  }

  /** Reasons by how many records each rejected, most first. */
  summary(): Array<{ reason: string; count: number; examples: string[] }> {
    return [...this.#reasons].map(([reason, { count, examples }]) => ({ reason, count, examples })).sort((a, b) => b.count - a.count);
  }

  /** One log line per reason. */
  log(): void {
    for (const { reason, count, examples } of this.summary()) {
      this.logger.warn({ reason, count, examples }, `rejected ${count} record${count === 1 ? "" : "s"}: ${reason}`);
    }
  }
}
