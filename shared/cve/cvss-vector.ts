/**
 * Turns a CVSS vector string into words a vulnerability manager can read on a
 * CVE page ("AV:N" → "Attack Vector: Network"), and maps a score to its
 * qualitative rating. The tables follow FIRST's specification documents for
 * CVSS v2.0, v3.0/v3.1 and v4.0; metric and value names are spelled as there.
 * Pure and dependency-free so the server and the browser share it.
 */

export interface CvssMetricWord {
  /** Abbreviated metric name as written in the vector, e.g. "AV". */
  key: string;
  /** Metric name as the specification writes it, e.g. "Attack Vector". */
  name: string;
  /** Abbreviated value as written in the vector, e.g. "N". */
  value: string;
  /** Value name as the specification writes it, e.g. "Network". */
  meaning: string;
  group: "base" | "threat" | "environmental" | "supplemental" | "temporal";
}

export interface DecodedCvssVector {
  version: "2.0" | "3.0" | "3.1" | "4.0";
  /** In the order they appear in the vector. */
  metrics: CvssMetricWord[];
}

type CvssVersion = DecodedCvssVector["version"];
type MetricGroup = CvssMetricWord["group"];
type Severity = "NONE" | "LOW" | "MEDIUM" | "HIGH" | "CRITICAL";

interface MetricDefinition {
  readonly name: string;
  readonly group: MetricGroup;
  /** Value code → value name. A Map, so codes such as "__proto__" cannot hit Object.prototype. */
  readonly values: ReadonlyMap<string, string>;
  /** Index in the specification's vector table, for versions that fix the order. */
  readonly position: number;
}

interface VersionTable {
  readonly metrics: ReadonlyMap<string, MetricDefinition>;
  readonly baseKeys: readonly string[];
  /** CVSS v4.0 declares every other ordering invalid; v2.0 and v3.x readers must accept any order. */
  readonly fixedOrder: boolean;
}

type MetricRow = readonly [key: string, name: string, group: MetricGroup, values: Readonly<Record<string, string>>];

function versionTable(rows: readonly MetricRow[], fixedOrder: boolean): VersionTable {
  return {
    metrics: new Map(rows.map(([key, name, group, values], position) => [key, { name, group, values: new Map(Object.entries(values)), position }])),
    baseKeys: rows.filter(([, , group]) => group === "base").map(([key]) => key),
    fixedOrder,
  };
}

/** v3.x and v4.0 optional metrics all accept X, which means "not evaluated". */
function orNotDefined(values: Readonly<Record<string, string>>): Record<string, string> {
  return { X: "Not Defined", ...values };
}

// CVSS v2.0: "A Complete Guide to the Common Vulnerability Scoring System Version 2.0", section 2.
const V2_IMPACT = { N: "None", P: "Partial", C: "Complete" };
const V2_REQUIREMENT = { L: "Low", M: "Medium", H: "High", ND: "Not Defined" };

const V2 = versionTable(
  [
    ["AV", "Access Vector", "base", { L: "Local", A: "Adjacent Network", N: "Network" }],
    ["AC", "Access Complexity", "base", { H: "High", M: "Medium", L: "Low" }],
    ["Au", "Authentication", "base", { M: "Multiple", S: "Single", N: "None" }],
    ["C", "Confidentiality Impact", "base", V2_IMPACT],
    ["I", "Integrity Impact", "base", V2_IMPACT],
    ["A", "Availability Impact", "base", V2_IMPACT],
    ["E", "Exploitability", "temporal", { U: "Unproven", POC: "Proof-of-Concept", F: "Functional", H: "High", ND: "Not Defined" }],
    ["RL", "Remediation Level", "temporal", { OF: "Official Fix", TF: "Temporary Fix", W: "Workaround", U: "Unavailable", ND: "Not Defined" }],
    ["RC", "Report Confidence", "temporal", { UC: "Unconfirmed", UR: "Uncorroborated", C: "Confirmed", ND: "Not Defined" }],
    ["CDP", "Collateral Damage Potential", "environmental", { N: "None", L: "Low", LM: "Low-Medium", MH: "Medium-High", H: "High", ND: "Not Defined" }],
    ["TD", "Target Distribution", "environmental", { N: "None", L: "Low", M: "Medium", H: "High", ND: "Not Defined" }],
    ["CR", "Confidentiality Requirement", "environmental", V2_REQUIREMENT],
    ["IR", "Integrity Requirement", "environmental", V2_REQUIREMENT],
    ["AR", "Availability Requirement", "environmental", V2_REQUIREMENT],
  ],
  false,
);

// Shared by v3.x and v4.0, whose specifications word these values identically.
const ATTACK_VECTOR = { N: "Network", A: "Adjacent", L: "Local", P: "Physical" };
const ATTACK_COMPLEXITY = { L: "Low", H: "High" };
const PRIVILEGES_REQUIRED = { N: "None", L: "Low", H: "High" };
const IMPACT = { H: "High", L: "Low", N: "None" };
const REQUIREMENT = orNotDefined({ H: "High", M: "Medium", L: "Low" });

// CVSS v3.0 and v3.1 share metrics and values (v3.1 only reworded definitions): specification table 15.
const V3_USER_INTERACTION = { N: "None", R: "Required" };
const V3_SCOPE = { U: "Unchanged", C: "Changed" };

const V3 = versionTable(
  [
    ["AV", "Attack Vector", "base", ATTACK_VECTOR],
    ["AC", "Attack Complexity", "base", ATTACK_COMPLEXITY],
    ["PR", "Privileges Required", "base", PRIVILEGES_REQUIRED],
    ["UI", "User Interaction", "base", V3_USER_INTERACTION],
    ["S", "Scope", "base", V3_SCOPE],
    ["C", "Confidentiality", "base", IMPACT],
    ["I", "Integrity", "base", IMPACT],
    ["A", "Availability", "base", IMPACT],
    ["E", "Exploit Code Maturity", "temporal", orNotDefined({ H: "High", F: "Functional", P: "Proof-of-Concept", U: "Unproven" })],
    ["RL", "Remediation Level", "temporal", orNotDefined({ U: "Unavailable", W: "Workaround", T: "Temporary Fix", O: "Official Fix" })],
    ["RC", "Report Confidence", "temporal", orNotDefined({ C: "Confirmed", R: "Reasonable", U: "Unknown" })],
    ["CR", "Confidentiality Requirement", "environmental", REQUIREMENT],
    ["IR", "Integrity Requirement", "environmental", REQUIREMENT],
    ["AR", "Availability Requirement", "environmental", REQUIREMENT],
    ["MAV", "Modified Attack Vector", "environmental", orNotDefined(ATTACK_VECTOR)],
    ["MAC", "Modified Attack Complexity", "environmental", orNotDefined(ATTACK_COMPLEXITY)],
    ["MPR", "Modified Privileges Required", "environmental", orNotDefined(PRIVILEGES_REQUIRED)],
    ["MUI", "Modified User Interaction", "environmental", orNotDefined(V3_USER_INTERACTION)],
    ["MS", "Modified Scope", "environmental", orNotDefined(V3_SCOPE)],
    ["MC", "Modified Confidentiality", "environmental", orNotDefined(IMPACT)],
    ["MI", "Modified Integrity", "environmental", orNotDefined(IMPACT)],
    ["MA", "Modified Availability", "environmental", orNotDefined(IMPACT)],
  ],
  false,
);

// CVSS v4.0: specification table 23, in its mandatory order.
const V4_ATTACK_REQUIREMENTS = { N: "None", P: "Present" };
const V4_USER_INTERACTION = { N: "None", P: "Passive", A: "Active" };
// Table 15: for MSC, MSI and MSA "the lowest metric value is 'Negligible' (N), not 'None' (N)";
// MSI and MSA add Safety (S), which the base subsequent-system metrics lack.
const V4_MODIFIED_SUBSEQUENT = orNotDefined({ H: "High", L: "Low", N: "Negligible" });
const V4_MODIFIED_SUBSEQUENT_SAFETY = orNotDefined({ S: "Safety", H: "High", L: "Low", N: "Negligible" });

const V4 = versionTable(
  [
    ["AV", "Attack Vector", "base", ATTACK_VECTOR],
    ["AC", "Attack Complexity", "base", ATTACK_COMPLEXITY],
    ["AT", "Attack Requirements", "base", V4_ATTACK_REQUIREMENTS],
    ["PR", "Privileges Required", "base", PRIVILEGES_REQUIRED],
    ["UI", "User Interaction", "base", V4_USER_INTERACTION],
    ["VC", "Vulnerable System Confidentiality Impact", "base", IMPACT],
    ["VI", "Vulnerable System Integrity Impact", "base", IMPACT],
    ["VA", "Vulnerable System Availability Impact", "base", IMPACT],
    ["SC", "Subsequent System Confidentiality Impact", "base", IMPACT],
    ["SI", "Subsequent System Integrity Impact", "base", IMPACT],
    ["SA", "Subsequent System Availability Impact", "base", IMPACT],
    ["E", "Exploit Maturity", "threat", orNotDefined({ A: "Attacked", P: "Proof-of-Concept", U: "Unreported" })],
    ["CR", "Confidentiality Requirement", "environmental", REQUIREMENT],
    ["IR", "Integrity Requirement", "environmental", REQUIREMENT],
    ["AR", "Availability Requirement", "environmental", REQUIREMENT],
    ["MAV", "Modified Attack Vector", "environmental", orNotDefined(ATTACK_VECTOR)],
    ["MAC", "Modified Attack Complexity", "environmental", orNotDefined(ATTACK_COMPLEXITY)],
    ["MAT", "Modified Attack Requirements", "environmental", orNotDefined(V4_ATTACK_REQUIREMENTS)],
    ["MPR", "Modified Privileges Required", "environmental", orNotDefined(PRIVILEGES_REQUIRED)],
    ["MUI", "Modified User Interaction", "environmental", orNotDefined(V4_USER_INTERACTION)],
    ["MVC", "Modified Vulnerable System Confidentiality", "environmental", orNotDefined(IMPACT)],
    ["MVI", "Modified Vulnerable System Integrity", "environmental", orNotDefined(IMPACT)],
    ["MVA", "Modified Vulnerable System Availability", "environmental", orNotDefined(IMPACT)],
    ["MSC", "Modified Subsequent System Confidentiality", "environmental", V4_MODIFIED_SUBSEQUENT],
    ["MSI", "Modified Subsequent System Integrity", "environmental", V4_MODIFIED_SUBSEQUENT_SAFETY],
    ["MSA", "Modified Subsequent System Availability", "environmental", V4_MODIFIED_SUBSEQUENT_SAFETY],
    ["S", "Safety", "supplemental", orNotDefined({ N: "Negligible", P: "Present" })],
    ["AU", "Automatable", "supplemental", orNotDefined({ N: "No", Y: "Yes" })],
    ["R", "Recovery", "supplemental", orNotDefined({ A: "Automatic", U: "User", I: "Irrecoverable" })],
    ["V", "Value Density", "supplemental", orNotDefined({ D: "Diffuse", C: "Concentrated" })],
    ["RE", "Vulnerability Response Effort", "supplemental", orNotDefined({ L: "Low", M: "Moderate", H: "High" })],
    ["U", "Provider Urgency", "supplemental", orNotDefined({ Clear: "Clear", Green: "Green", Amber: "Amber", Red: "Red" })],
  ],
  true,
);

const TABLES: Readonly<Record<CvssVersion, VersionTable>> = { "2.0": V2, "3.0": V3, "3.1": V3, "4.0": V4 };

function isCvssVersion(version: string): version is CvssVersion {
  return Object.hasOwn(TABLES, version);
}

/**
 * The longest valid vector (v4.0 with every metric) is under 200 characters;
 * anything far longer is junk, refused before it is split.
 */
const MAX_VECTOR_LENGTH = 256;

/**
 * v3.x and v4.0 vectors open with "CVSS:<version>/". v2.0 vectors carry no
 * prefix in NVD and CVE records, the v2 guide writes them in parentheses, and
 * some tools prefix "CVSS:2.0/".
 */
function splitVersion(vector: string): { version: CvssVersion; body: string } | null {
  const prefixed = /^CVSS:([^/]*)\/(.*)$/.exec(vector);
  if (prefixed) {
    const [, version = "", body = ""] = prefixed;
    return isCvssVersion(version) ? { version, body } : null;
  }
  const parenthesised = /^\((.*)\)$/.exec(vector);
  return { version: "2.0", body: parenthesised?.[1] ?? vector };
}

/**
 * Decodes a CVSS v2.0, v3.0, v3.1 or v4.0 vector string, metric by metric.
 * Returns null for anything malformed: an unknown version, an unknown metric
 * or value (codes are case-sensitive), a repeated metric, a missing base
 * metric, an empty component, or a v4.0 vector out of the specification's order.
 */
export function decodeCvssVector(vector: string): DecodedCvssVector | null {
  const trimmed = vector.trim();
  if (trimmed === "" || trimmed.length > MAX_VECTOR_LENGTH) return null;
  const located = splitVersion(trimmed);
  if (!located) return null;
  const table = TABLES[located.version];

  const metrics: CvssMetricWord[] = [];
  const seen = new Set<string>();
  let lastPosition = -1;
  for (const component of located.body.split("/")) {
    const colon = component.indexOf(":");
    if (colon < 0) return null;
    const key = component.slice(0, colon);
    const value = component.slice(colon + 1);
    const definition = table.metrics.get(key);
    const meaning = definition?.values.get(value);
    if (!definition || meaning === undefined || seen.has(key)) return null;
    if (table.fixedOrder && definition.position < lastPosition) return null;
    lastPosition = definition.position;
    seen.add(key);
    metrics.push({ key, name: definition.name, value, meaning, group: definition.group });
  }
  if (table.baseKeys.some((key) => !seen.has(key))) return null;
  return { version: located.version, metrics };
}

/**
 * Qualitative rating of a 0–10 score. v3.0, v3.1 and v4.0 use FIRST's
 * five-band scale (None 0.0, Low 0.1–3.9, Medium 4.0–6.9, High 7.0–8.9,
 * Critical 9.0–10.0). v2.0 defines no scale of its own; the three bands used
 * for it everywhere (Low 0.0–3.9, Medium 4.0–6.9, High 7.0–10.0) are NVD's.
 * Bands are compared as "below the next lower bound" so a score that was not
 * rounded to one decimal still lands in a band.
 * Throws RangeError for a score outside 0–10 or an unknown version, rather
 * than print a rating that no specification gives.
 */
export function cvssSeverity(score: number, version: string): Severity {
  if (!Number.isFinite(score) || score < 0 || score > 10) {
    throw new RangeError(`CVSS score must be between 0 and 10, got ${score}`);
  }
  if (!isCvssVersion(version)) throw new RangeError(`Unknown CVSS version: ${JSON.stringify(version)}`);
  if (version === "2.0") return score < 4 ? "LOW" : score < 7 ? "MEDIUM" : "HIGH";
  if (score === 0) return "NONE";
  if (score < 4) return "LOW";
  if (score < 7) return "MEDIUM";
  if (score < 9) return "HIGH";
  return "CRITICAL";
}
