import { LRUCache } from "lru-cache";
import type { DataDomain } from "./data-domains";

export type VersionedCache = <T>(key: string, compute: () => Promise<T>) => Promise<T>;

/**
 * The current version of the data: changes whenever an import (or anything
 * else) commits. Given a domain, the version of that domain's data alone,
 * where the database tells them apart (SQLite); else the same for all.
 */
export type DataVersion = (domain?: DataDomain) => string;

/**
 * A cache for answers that only change with the data: every key is prefixed
 * with the data version, so a finished import makes every earlier entry
 * unreachable. Failed computations are not kept; concurrent callers of one
 * key share one computation.
 */
export function createVersionedCache(dataVersion: DataVersion, max = 500): VersionedCache {
  const cache = new LRUCache<string, Promise<unknown>>({ max });
  return async function cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const versioned = `${dataVersion()}|${key}`;
    let entry = cache.get(versioned) as Promise<T> | undefined;
    if (!entry) {
      entry = compute();
      cache.set(versioned, entry);
      entry.catch(() => cache.delete(versioned));
    }
    return entry;
  };
}
