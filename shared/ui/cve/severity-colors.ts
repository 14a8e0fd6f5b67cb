/** Chart colours per severity; the tables pair each with a text label. */
export const SEVERITY_COLORS: Record<string, string> = {
  CRITICAL: "#7b1fa2",
  HIGH: "#d32f2f",
  MEDIUM: "#f57c00",
  LOW: "#1976d2",
  NONE: "#78909c",
};
