const SOURCE_LABELS: Record<string, string> = { cna: "CNA", "cisa-adp": "CISA-ADP", nvd: "NVD" };

/** Who asserted a metric, as the CVE Program writes it (the CNA, CISA's ADP container, NVD). */
export const sourceLabel = (source: string) => SOURCE_LABELS[source] ?? source;
