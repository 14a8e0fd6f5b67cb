/**
 * Node flags of every process that imports (the scheduler's import process,
 * `npm run sync` through its npm script, bench:import's import children).
 * Without a cap, V8 lets the garbage of a million staged rows pile up to
 * several hundred MB before it collects, and under CPU contention an import
 * peaked at 440–520 MB of RSS; its live heap stays far below this cap, as
 * records stream through bounded staging chunks (docs/performance.md).
 * The young generation is capped too: a streaming import makes short-lived
 * objects at a high rate, and V8 grows its semi-spaces for that (to 32 MB
 * or more each on a machine with memory to spare); 8 MB each took maltrail's
 * first import from 397 to 306 MB of peak RSS for 6 % more CPU, measured side by side.
 * The npm script `sync` repeats the figures (package.json has no comments).
 */
export const IMPORT_HEAP_FLAGS: readonly string[] = ["--max-old-space-size=192", "--max-semi-space-size=8"];
