/**
 * Node flags of every process that imports (the scheduler's import process,
 * `npm run sync` through its npm script, bench:import's import children).
 * Without a cap, V8 lets the garbage of a million staged rows pile up to
 * several hundred MB before it collects, and under CPU contention an import
 * peaked at 440–520 MB of RSS; its live heap stays far below this cap, as
 * records stream through bounded staging chunks (docs/performance.md).
 * The npm script `sync` repeats the figure (package.json has no comments).
 */
export const IMPORT_HEAP_FLAGS: readonly string[] = ["--max-old-space-size=192"];
