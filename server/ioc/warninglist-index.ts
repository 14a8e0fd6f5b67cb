/**
 * The compact structures behind the warninglist matcher. The full MISP set
 * holds about 270,000 entries; kept as a JavaScript object, a string and an
 * array per entry they cost about 47 MB of the web process's heap for as long
 * as it runs. Packed into typed arrays and one string per table they cost a
 * few megabytes, and a match still takes a binary search.
 */

/*
 * Each structure's state is plain data (strings, typed arrays, a Map): what
 * `v8.serialize` writes and reads back as it was, so that an import can store
 * the packed matcher and a web process load it without building it again
 * (server/ioc/warninglist-snapshot.ts).
 */

export interface PackedStringsState {
  text: string;
  offsets: Uint32Array;
}

export interface KeyTableState {
  keys: PackedStringsState;
  lists: Uint16Array;
  spellings: Map<number, string>;
}

export interface IntervalIndexState<T extends number | bigint> {
  starts: ArrayLike<T>;
  ends: ArrayLike<T>;
  maxEnd: ArrayLike<T>;
  lists: Uint16Array;
  prefixes: Uint8Array;
  entries: PackedStringsState;
}

/** The list an entry belongs to, its text, and how specific it is (larger wins). */
export type EntryVisitor = (list: number, entry: string, specificity: number) => void;

/** Many short strings stored as one, addressed by position. */
export class PackedStrings {
  private constructor(
    private readonly text: string,
    private readonly offsets: Uint32Array,
  ) {}

  static fromState(state: PackedStringsState): PackedStrings {
    return new PackedStrings(state.text, state.offsets);
  }

  get state(): PackedStringsState {
    return { text: this.text, offsets: this.offsets };
  }

  static from(values: readonly string[]): PackedStrings {
    const offsets = new Uint32Array(values.length + 1);
    let length = 0;
    for (const [i, value] of values.entries()) {
      length += value.length;
      offsets[i + 1] = length;
    }
    return new PackedStrings(values.join(""), offsets);
  }

  get length(): number {
    return this.offsets.length - 1;
  }

  get(index: number): string {
    return this.text.slice(this.offsets[index], this.offsets[index + 1]);
  }

  /** Negative, zero or positive as `key` sorts before, equal to or after item `index` (UTF-16 code units, as `Array#sort`). */
  compare(key: string, index: number): number {
    const start = this.offsets[index] as number;
    const length = (this.offsets[index + 1] as number) - start;
    const shared = Math.min(key.length, length);
    for (let i = 0; i < shared; i += 1) {
      const difference = key.charCodeAt(i) - this.text.charCodeAt(start + i);
      if (difference !== 0) return difference;
    }
    return key.length - length;
  }
}

export interface KeyedEntry {
  /** What a value is compared with: the entry trimmed and lower-cased. */
  key: string;
  list: number;
  /** The entry as the list spells it, shown to the user. */
  entry: string;
}

function toListIds(lists: readonly number[]): Uint16Array {
  if (lists.some((list) => list > 0xffff)) throw new RangeError("more than 65,536 warninglists");
  return Uint16Array.from(lists);
}

/** Exact lookups of a key (string and hostname lists). */
export class KeyTable {
  private constructor(
    private readonly keys: PackedStrings,
    private readonly lists: Uint16Array,
    /** The few entries whose text differs from their key, by position. */
    private readonly spellings: ReadonlyMap<number, string>,
  ) {}

  static build(items: KeyedEntry[]): KeyTable {
    items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.list - b.list));
    const spellings = new Map<number, string>();
    for (const [i, item] of items.entries()) if (item.entry !== item.key) spellings.set(i, item.entry);
    return new KeyTable(PackedStrings.from(items.map((item) => item.key)), toListIds(items.map((item) => item.list)), spellings);
  }

  static fromState(state: KeyTableState): KeyTable {
    return new KeyTable(PackedStrings.fromState(state.keys), state.lists, state.spellings);
  }

  get state(): KeyTableState {
    return { keys: this.keys.state, lists: this.lists, spellings: new Map(this.spellings) };
  }

  find(key: string, specificity: number, visit: EntryVisitor): void {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys.compare(key, mid) > 0) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.keys.length && this.keys.compare(key, i) === 0; i += 1) {
      visit(this.lists[i] as number, this.spellings.get(i) ?? key, specificity);
    }
  }
}

export interface RangeEntry<T extends number | bigint> {
  start: T;
  end: T;
  list: number;
  entry: string;
  /** The prefix length. */
  specificity: number;
}

/** Stabbing index over closed intervals: which intervals contain a point or a range. */
export class IntervalIndex<T extends number | bigint> {
  private constructor(
    private readonly starts: ArrayLike<T>,
    private readonly ends: ArrayLike<T>,
    /** maxEnd[i] = largest end among intervals 0..i (sorted by start), so a scan can stop early. */
    private readonly maxEnd: ArrayLike<T>,
    private readonly lists: Uint16Array,
    private readonly prefixes: Uint8Array,
    private readonly entries: PackedStrings,
  ) {}

  /** `column` stores the bounds: a Uint32Array for IPv4, a plain array for IPv6's 128-bit bigints. */
  static build<T extends number | bigint>(items: RangeEntry<T>[], column: (values: T[]) => ArrayLike<T>): IntervalIndex<T> {
    items.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
    const maxEnd: T[] = [];
    for (const [i, item] of items.entries()) {
      const previous = maxEnd[i - 1];
      maxEnd.push(previous !== undefined && previous > item.end ? previous : item.end);
    }
    return new IntervalIndex(
      column(items.map((item) => item.start)),
      column(items.map((item) => item.end)),
      column(maxEnd),
      toListIds(items.map((item) => item.list)),
      Uint8Array.from(items.map((item) => item.specificity)),
      PackedStrings.from(items.map((item) => item.entry)),
    );
  }

  static fromState<T extends number | bigint>(state: IntervalIndexState<T>): IntervalIndex<T> {
    return new IntervalIndex(state.starts, state.ends, state.maxEnd, state.lists, state.prefixes, PackedStrings.fromState(state.entries));
  }

  get state(): IntervalIndexState<T> {
    return { starts: this.starts, ends: this.ends, maxEnd: this.maxEnd, lists: this.lists, prefixes: this.prefixes, entries: this.entries.state };
  }

  /** Intervals containing [low, high] (a point when low === high). */
  containing(low: T, high: T, visit: EntryVisitor): void {
    let lo = 0;
    let hi = this.starts.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.starts[mid] as T) <= low) {
        last = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    for (let i = last; i >= 0 && (this.maxEnd[i] as T) >= high; i -= 1) {
      if ((this.ends[i] as T) >= high) visit(this.lists[i] as number, this.entries.get(i), this.prefixes[i] as number);
    }
  }
}
