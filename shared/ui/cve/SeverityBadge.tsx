const LABELS: Record<string, string> = {
  CRITICAL: "Critical",
  HIGH: "High",
  MEDIUM: "Medium",
  LOW: "Low",
  NONE: "None",
};

/**
 * Severity as colour *and* text (and a distinct glyph), so it reads the same
 * for people who do not see the colour.
 */
export function SeverityBadge({ severity, score, version }: { severity: string | null; score?: number | null; version?: string | null }) {
  const key = (severity ?? "NONE").toUpperCase();
  const label = LABELS[key] ?? key;
  return (
    <span className={`severity severity--${key.toLowerCase()}`} title={version ? `CVSS ${version}` : undefined}>
      {score !== undefined && score !== null ? <strong>{score.toFixed(1)}</strong> : null} {label}
      {version ? <span className="severity__version"> v{version}</span> : null}
    </span>
  );
}
