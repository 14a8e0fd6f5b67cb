import type { Kysely } from "kysely";
import { LRUCache } from "lru-cache";
import type { Database } from "./schema";

export type VersionedCache = <T>(key: string, compute: () => Promise<T>) => Promise<T>;

/**
 * A cache for answers that only change when an import finishes: every key is
 * prefixed with the newest successful import across sources, so a finished
 * import makes every earlier entry unreachable. Failed computations are not
 * kept; concurrent callers of one key share one computation.
 */
export function createVersionedCache(db: Kysely<Database>, max = 500): VersionedCache {
  const cache = new LRUCache<string, Promise<unknown>>({ max });

  async function dataVersion(): Promise<string> {
    const row = await db
      .selectFrom("sources")
      .select((eb) => [eb.fn.max("last_success_at").as("version"), eb.fn.countAll<number>().as("sources")])
      .executeTakeFirst();
    return `${row?.version ?? ""}/${row?.sources ?? 0}`;
  }

  return async function cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const versioned = `${await dataVersion()}|${key}`;
    let entry = cache.get(versioned) as Promise<T> | undefined;
    if (!entry) {
      entry = compute();
      cache.set(versioned, entry);
      entry.catch(() => cache.delete(versioned));
    }
    return entry;
  };
}
