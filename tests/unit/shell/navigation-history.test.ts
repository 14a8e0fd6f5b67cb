import { describe, expect, it } from "vitest";
import { readNavigationHistory, recordNavigation } from "../../../shared/navigation/history";

class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  get length() {
    return this.items.size;
  }
  clear() {
    this.items.clear();
  }
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  key(index: number) {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
}

describe("navigation history", () => {
  it("records from, to and timestamp, newest last, capped at 50", () => {
    const storage = new MemoryStorage();
    for (let i = 0; i < 60; i++) recordNavigation(storage, { from: `/a${i}`, to: `/a${i + 1}`, timestamp: i });
    const entries = readNavigationHistory(storage);
    expect(entries).toHaveLength(50);
    expect(entries.at(-1)).toEqual({ from: "/a59", to: "/a60", timestamp: 59 });
  });

  it("survives corrupt storage", () => {
    const storage = new MemoryStorage();
    storage.setItem("threat-radar:navigation-history", "{not json");
    expect(readNavigationHistory(storage)).toEqual([]);
  });
});
