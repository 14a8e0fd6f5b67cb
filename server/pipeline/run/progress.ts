import type { ImportProgress } from "./types";

const PROGRESS_INTERVAL_MS = 100;

/** One run's progress, shared by its download, read and merge steps, and reported at most every 100 ms unless forced. */
export class RunProgress {
  readonly state: ImportProgress;
  private lastEmit = 0;

  constructor(
    source: string,
    expectedRecords: number | null,
    private readonly onProgress: ((progress: ImportProgress) => void) | undefined,
  ) {
    this.state = { source, phase: "import", done: 0, total: 0, records: 0, expectedRecords };
  }

  emit(force = false): void {
    const t = performance.now();
    if (!this.onProgress || (!force && t - this.lastEmit < PROGRESS_INTERVAL_MS)) return;
    this.lastEmit = t;
    this.onProgress({ ...this.state });
  }
}
