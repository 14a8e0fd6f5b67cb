import type { SourceStatus } from "../../types/source-status";
import { formatDay } from "../../util/format";

/**
 * What dates a feed's data: its newest record, else (for lists whose records
 * carry no date) the day the publisher last updated the list; an imported
 * feed with neither is undated, and judged by its last import. Null before
 * the first import.
 */
function dataDate({ freshness, lastSuccessAt }: SourceStatus): { label: string; day: string | null } | null {
  if (freshness.newestRecordAt) return { label: "newest record", day: formatDay(freshness.newestRecordAt) };
  if (freshness.publishedAt) return { label: "undated records, list of", day: formatDay(freshness.publishedAt) };
  return lastSuccessAt ? { label: "undated records", day: null } : null;
}

/** What dates a feed's data (dataDate), its day kept on one line; `fallback` before the first import. */
export function DataDate({ source, fallback }: { source: SourceStatus; fallback: string }) {
  const date = dataDate(source);
  if (date === null) return <>{fallback}</>;
  if (date.day === null) return <>{date.label}</>;
  return (
    <>
      {date.label}{" "}
      <time className="nowrap" dateTime={date.day}>
        {date.day}
      </time>
    </>
  );
}
