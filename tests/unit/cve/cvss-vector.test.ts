import { describe, expect, it } from "vitest";
import { cvssSeverity, decodeCvssVector, type CvssMetricWord, type DecodedCvssVector } from "../../../shared/cve/cvss-vector";

/** One line per metric, so a wrong word shows up as a readable diff. */
function words(decoded: DecodedCvssVector | null): string[] {
  expect(decoded).not.toBeNull();
  return (decoded?.metrics ?? []).map((m: CvssMetricWord) => `${m.group} ${m.key}:${m.value} ${m.name} = ${m.meaning}`);
}

function meaningOf(decoded: DecodedCvssVector | null, key: string): string | undefined {
  return decoded?.metrics.find((m) => m.key === key)?.meaning;
}

// CVE-2024-3400 (PAN-OS GlobalProtect), as scored by the CNA.
const PAN_OS_V4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/E:A/AU:Y/R:U/V:C/RE:H/U:Red";
const PAN_OS_V31 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H";
// CVE-2021-44228 (Log4Shell).
const LOG4SHELL_V31 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H";
// A network-reachable, unauthenticated complete-compromise v2 vector as NVD wrote them.
const V2_VECTOR = "AV:N/AC:M/Au:N/C:C/I:C/A:C";

const V31_CRITICAL_WORDS = [
  "base AV:N Attack Vector = Network",
  "base AC:L Attack Complexity = Low",
  "base PR:N Privileges Required = None",
  "base UI:N User Interaction = None",
  "base S:C Scope = Changed",
  "base C:H Confidentiality = High",
  "base I:H Integrity = High",
  "base A:H Availability = High",
];

describe("decodeCvssVector, CVSS v4.0", () => {
  it("decodes CVE-2024-3400's CNA vector with threat and supplemental metrics", () => {
    const decoded = decodeCvssVector(PAN_OS_V4);
    expect(decoded?.version).toBe("4.0");
    expect(words(decoded)).toEqual([
      "base AV:N Attack Vector = Network",
      "base AC:L Attack Complexity = Low",
      "base AT:N Attack Requirements = None",
      "base PR:N Privileges Required = None",
      "base UI:N User Interaction = None",
      "base VC:H Vulnerable System Confidentiality Impact = High",
      "base VI:H Vulnerable System Integrity Impact = High",
      "base VA:H Vulnerable System Availability Impact = High",
      "base SC:N Subsequent System Confidentiality Impact = None",
      "base SI:N Subsequent System Integrity Impact = None",
      "base SA:N Subsequent System Availability Impact = None",
      "threat E:A Exploit Maturity = Attacked",
      "supplemental AU:Y Automatable = Yes",
      "supplemental R:U Recovery = User",
      "supplemental V:C Value Density = Concentrated",
      "supplemental RE:H Vulnerability Response Effort = High",
      "supplemental U:Red Provider Urgency = Red",
    ]);
  });

  it("returns the full word record for each metric", () => {
    expect(decodeCvssVector(PAN_OS_V4)?.metrics[11]).toEqual({
      key: "E",
      name: "Exploit Maturity",
      value: "A",
      meaning: "Attacked",
      group: "threat",
    });
  });

  it("decodes the specification's CVSS-BTE sample with environmental and supplemental metrics", () => {
    const decoded = decodeCvssVector(
      "CVSS:4.0/AV:N/AC:L/AT:N/PR:H/UI:N/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N/E:U/CR:L/IR:X/AR:L/MAV:A/MAC:H/MAT:N/MPR:N/MUI:P/MVC:X/MVI:N/MVA:H/MSC:N/MSI:L/MSA:S/S:N/AU:N/R:I/V:C/RE:H/U:Green",
    );
    expect(words(decoded)).toEqual([
      "base AV:N Attack Vector = Network",
      "base AC:L Attack Complexity = Low",
      "base AT:N Attack Requirements = None",
      "base PR:H Privileges Required = High",
      "base UI:N User Interaction = None",
      "base VC:L Vulnerable System Confidentiality Impact = Low",
      "base VI:L Vulnerable System Integrity Impact = Low",
      "base VA:N Vulnerable System Availability Impact = None",
      "base SC:N Subsequent System Confidentiality Impact = None",
      "base SI:N Subsequent System Integrity Impact = None",
      "base SA:N Subsequent System Availability Impact = None",
      "threat E:U Exploit Maturity = Unreported",
      "environmental CR:L Confidentiality Requirement = Low",
      "environmental IR:X Integrity Requirement = Not Defined",
      "environmental AR:L Availability Requirement = Low",
      "environmental MAV:A Modified Attack Vector = Adjacent",
      "environmental MAC:H Modified Attack Complexity = High",
      "environmental MAT:N Modified Attack Requirements = None",
      "environmental MPR:N Modified Privileges Required = None",
      "environmental MUI:P Modified User Interaction = Passive",
      "environmental MVC:X Modified Vulnerable System Confidentiality = Not Defined",
      "environmental MVI:N Modified Vulnerable System Integrity = None",
      "environmental MVA:H Modified Vulnerable System Availability = High",
      "environmental MSC:N Modified Subsequent System Confidentiality = Negligible",
      "environmental MSI:L Modified Subsequent System Integrity = Low",
      "environmental MSA:S Modified Subsequent System Availability = Safety",
      "supplemental S:N Safety = Negligible",
      "supplemental AU:N Automatable = No",
      "supplemental R:I Recovery = Irrecoverable",
      "supplemental V:C Value Density = Concentrated",
      "supplemental RE:H Vulnerability Response Effort = High",
      "supplemental U:Green Provider Urgency = Green",
    ]);
  });

  it.each([
    ["CVSS:4.0/AV:A/AC:H/AT:P/PR:L/UI:P/VC:H/VI:H/VA:H/SC:L/SI:L/SA:L/E:P", "E", "Proof-of-Concept"],
    [
      "CVSS:4.0/AV:L/AC:H/AT:N/PR:N/UI:A/VC:N/VI:N/VA:L/SC:H/SI:H/SA:H/CR:H/IR:H/AR:M/MAV:N/MAC:L/MAT:P/MPR:L/MUI:A/MVC:N/MVI:H/MVA:L/MSC:L/MSI:S/MSA:H",
      "MSI",
      "Safety",
    ],
    ["CVSS:4.0/AV:P/AC:H/AT:P/PR:L/UI:P/VC:H/VI:H/VA:H/SC:L/SI:L/SA:L/E:A/S:P/AU:Y/R:A/V:D/RE:L/U:Red", "S", "Present"],
    ["CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N/U:Amber", "U", "Amber"],
    ["CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N/RE:M/U:Clear", "RE", "Moderate"],
  ])("decodes the valid sample %s (%s = %s)", (vector, key, meaning) => {
    expect(meaningOf(decodeCvssVector(vector), key)).toBe(meaning);
  });

  it("accepts the longest possible vector, every metric present", () => {
    const vector =
      "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H/E:A/CR:H/IR:H/AR:H" +
      "/MAV:N/MAC:L/MAT:N/MPR:N/MUI:N/MVC:H/MVI:H/MVA:H/MSC:H/MSI:S/MSA:S/S:P/AU:Y/R:I/V:C/RE:H/U:Amber";
    expect(decodeCvssVector(vector)?.metrics).toHaveLength(32);
  });

  it.each([
    ["out of the specification's order", "CVSS:4.0/AC:L/AV:N/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"],
    ["E defined twice", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N/E:A/E:X"],
    ["lower-case metric name", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/ui:N/VC:N/VI:L/VA:N/SC:N/SI:N/SA:N"],
    ["F is not an Attack Vector", "CVSS:4.0/AV:F/AC:L/AT:N/PR:N/UI:N/VC:N/VI:L/VA:N/SC:N/SI:N/SA:N"],
    ["mandatory VA missing", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:L/SC:N/SI:N/SA:N"],
    ["Safety on MSC", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/MSC:S"],
    ["Safety on a base metric", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:S/SA:N"],
    ["Not Defined on a base metric", "CVSS:4.0/AV:X/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"],
    ["urgency in the wrong case", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/U:red"],
    ["a v3 metric (S:U is not a Safety value)", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/S:U"],
    ["prefix missing", "AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:L/VA:N/SC:N/SI:N/SA:N"],
  ])("refuses a v4.0 vector with %s", (_why, vector) => {
    expect(decodeCvssVector(vector)).toBeNull();
  });
});

describe("decodeCvssVector, CVSS v3.x", () => {
  it("decodes CVE-2024-3400's v3.1 vector", () => {
    const decoded = decodeCvssVector(PAN_OS_V31);
    expect(decoded?.version).toBe("3.1");
    expect(words(decoded)).toEqual(V31_CRITICAL_WORDS);
  });

  it("decodes Log4Shell's v3.1 vector", () => {
    expect(words(decodeCvssVector(LOG4SHELL_V31))).toEqual(V31_CRITICAL_WORDS);
  });

  it("decodes a v3.0 vector with the same tables and reports its version", () => {
    const decoded = decodeCvssVector("CVSS:3.0/AV:A/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N");
    expect(decoded?.version).toBe("3.0");
    expect(words(decoded)).toEqual([
      "base AV:A Attack Vector = Adjacent",
      "base AC:H Attack Complexity = High",
      "base PR:L Privileges Required = Low",
      "base UI:R User Interaction = Required",
      "base S:U Scope = Unchanged",
      "base C:L Confidentiality = Low",
      "base I:N Integrity = None",
      "base A:N Availability = None",
    ]);
  });

  it("decodes temporal and environmental metrics", () => {
    const decoded = decodeCvssVector("CVSS:3.1/AV:P/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H/E:F/RL:T/RC:R/CR:M/IR:X/AR:L/MAV:L/MAC:H/MPR:N/MUI:R/MS:C/MC:N/MI:L/MA:X");
    expect(words(decoded).slice(8)).toEqual([
      "temporal E:F Exploit Code Maturity = Functional",
      "temporal RL:T Remediation Level = Temporary Fix",
      "temporal RC:R Report Confidence = Reasonable",
      "environmental CR:M Confidentiality Requirement = Medium",
      "environmental IR:X Integrity Requirement = Not Defined",
      "environmental AR:L Availability Requirement = Low",
      "environmental MAV:L Modified Attack Vector = Local",
      "environmental MAC:H Modified Attack Complexity = High",
      "environmental MPR:N Modified Privileges Required = None",
      "environmental MUI:R Modified User Interaction = Required",
      "environmental MS:C Modified Scope = Changed",
      "environmental MC:N Modified Confidentiality = None",
      "environmental MI:L Modified Integrity = Low",
      "environmental MA:X Modified Availability = Not Defined",
    ]);
    expect(meaningOf(decodeCvssVector(`${PAN_OS_V31}/E:P/RL:O/RC:U`), "E")).toBe("Proof-of-Concept");
    expect(meaningOf(decodeCvssVector(`${PAN_OS_V31}/E:P/RL:O/RC:U`), "RL")).toBe("Official Fix");
    expect(meaningOf(decodeCvssVector(`${PAN_OS_V31}/E:P/RL:W/RC:U`), "RL")).toBe("Workaround");
    expect(meaningOf(decodeCvssVector(`${PAN_OS_V31}/E:U/RL:U/RC:U`), "RC")).toBe("Unknown");
  });

  it("accepts metrics in any order, as the v3.1 specification requires of readers", () => {
    const decoded = decodeCvssVector("CVSS:3.1/E:H/A:H/I:H/C:H/S:C/UI:N/PR:N/AC:L/AV:N");
    expect(decoded?.metrics.map((m) => m.key)).toEqual(["E", "A", "I", "C", "S", "UI", "PR", "AC", "AV"]);
  });

  it("ignores surrounding whitespace from a pasted vector", () => {
    expect(words(decodeCvssVector(`  ${LOG4SHELL_V31}\n`))).toEqual(V31_CRITICAL_WORDS);
  });

  it.each([
    ["Not Defined on a base metric", "CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["Scope missing", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/C:H/I:H/A:H"],
    ["a v4.0 metric", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H/AT:N"],
    ["a v2.0 value", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:C/I:H/A:H"],
    ["a trailing slash", `${LOG4SHELL_V31}/`],
    ["an empty component", "CVSS:3.1/AV:N//AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["a value with two colons", "CVSS:3.1/AV:N:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["lower-case values", "CVSS:3.1/AV:n/AC:l/PR:n/UI:n/S:c/C:h/I:h/A:h"],
    ["no prefix", "AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["the prefix alone", "CVSS:3.1/"],
    ["the prefix without a slash", "CVSS:3.1"],
  ])("refuses a v3.x vector with %s", (_why, vector) => {
    expect(decodeCvssVector(vector)).toBeNull();
  });
});

describe("decodeCvssVector, CVSS v2.0", () => {
  const expected = [
    "base AV:N Access Vector = Network",
    "base AC:M Access Complexity = Medium",
    "base Au:N Authentication = None",
    "base C:C Confidentiality Impact = Complete",
    "base I:C Integrity Impact = Complete",
    "base A:C Availability Impact = Complete",
  ];

  it.each([
    ["without a prefix", V2_VECTOR],
    ["in parentheses", `(${V2_VECTOR})`],
    ["with a CVSS:2.0 prefix", `CVSS:2.0/${V2_VECTOR}`],
  ])("decodes a base vector %s", (_how, vector) => {
    const decoded = decodeCvssVector(vector);
    expect(decoded?.version).toBe("2.0");
    expect(words(decoded)).toEqual(expected);
  });

  it("decodes temporal and environmental metrics", () => {
    const decoded = decodeCvssVector("(AV:L/AC:H/Au:M/C:N/I:P/A:N/E:POC/RL:OF/RC:UR/CDP:LM/TD:H/CR:M/IR:L/AR:ND)");
    expect(words(decoded)).toEqual([
      "base AV:L Access Vector = Local",
      "base AC:H Access Complexity = High",
      "base Au:M Authentication = Multiple",
      "base C:N Confidentiality Impact = None",
      "base I:P Integrity Impact = Partial",
      "base A:N Availability Impact = None",
      "temporal E:POC Exploitability = Proof-of-Concept",
      "temporal RL:OF Remediation Level = Official Fix",
      "temporal RC:UR Report Confidence = Uncorroborated",
      "environmental CDP:LM Collateral Damage Potential = Low-Medium",
      "environmental TD:H Target Distribution = High",
      "environmental CR:M Confidentiality Requirement = Medium",
      "environmental IR:L Integrity Requirement = Low",
      "environmental AR:ND Availability Requirement = Not Defined",
    ]);
    expect(meaningOf(decodeCvssVector(`AV:A/AC:L/Au:S/C:P/I:P/A:P/E:U/RL:TF/RC:UC/CDP:MH`), "AV")).toBe("Adjacent Network");
    expect(meaningOf(decodeCvssVector(`${V2_VECTOR}/E:F/RL:W/RC:C/CDP:MH`), "CDP")).toBe("Medium-High");
  });

  it.each([
    ["Authentication missing", "AV:N/AC:M/C:C/I:C/A:C"],
    ["a v3 metric", "AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"],
    ["a v3 value", "AV:N/AC:L/Au:N/C:H/I:H/A:H"],
    ["Not Defined on a base metric", "AV:ND/AC:M/Au:N/C:C/I:C/A:C"],
    ["the v3 spelling of Not Defined", `${V2_VECTOR}/E:X`],
    ["AU in upper case", "AV:N/AC:M/AU:N/C:C/I:C/A:C"],
    ["an unbalanced parenthesis", `(${V2_VECTOR}`],
    ["a parenthesised vector behind the prefix", `CVSS:2.0/(${V2_VECTOR})`],
  ])("refuses a v2.0 vector with %s", (_why, vector) => {
    expect(decodeCvssVector(vector)).toBeNull();
  });
});

describe("decodeCvssVector, malformed input", () => {
  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["a bad value on a lone metric", "CVSS:3.1/AV:X"],
    ["an unknown metric", `${LOG4SHELL_V31}/ZZ:H`],
    ["a duplicate metric", "CVSS:3.1/AV:N/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["a duplicate metric with another value", `${LOG4SHELL_V31}/AV:L`],
    ["a missing base metric", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H"],
    ["markup", "<script>alert(1)</script>"],
    ["markup inside a vector", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:<script>"],
    ["an unknown version", "CVSS:3.2/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["CVSS v1", "CVSS:1.0/AV:R/AC:L/Au:NR/C:C/I:C/A:C"],
    ["an empty version", "CVSS:/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["a lower-case prefix", "cvss:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["a prototype key", "CVSS:3.1/__proto__:N/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["a prototype value", "CVSS:3.1/AV:constructor/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H"],
    ["a 5 kB string", "AV:N/".repeat(1000)],
    ["a 5 kB string of one character", "A".repeat(5000)],
    ["a valid vector followed by junk", `${LOG4SHELL_V31}${" ".repeat(300)}x`],
  ])("returns null for %s", (_why, vector) => {
    expect(decodeCvssVector(vector)).toBeNull();
  });
});

describe("cvssSeverity", () => {
  it.each(["3.0", "3.1", "4.0"])("rates v%s scores on FIRST's five bands", (version) => {
    const ratings = [0, 0.1, 3.9, 4.0, 6.9, 7.0, 8.9, 9.0, 10].map((score) => [score, cvssSeverity(score, version)]);
    expect(ratings).toEqual([
      [0, "NONE"],
      [0.1, "LOW"],
      [3.9, "LOW"],
      [4.0, "MEDIUM"],
      [6.9, "MEDIUM"],
      [7.0, "HIGH"],
      [8.9, "HIGH"],
      [9.0, "CRITICAL"],
      [10, "CRITICAL"],
    ]);
  });

  it("rates v2.0 scores on three bands, with no NONE or CRITICAL", () => {
    const ratings = [0, 0.1, 3.9, 4.0, 6.9, 7.0, 8.9, 9.0, 10].map((score) => [score, cvssSeverity(score, "2.0")]);
    expect(ratings).toEqual([
      [0, "LOW"],
      [0.1, "LOW"],
      [3.9, "LOW"],
      [4.0, "MEDIUM"],
      [6.9, "MEDIUM"],
      [7.0, "HIGH"],
      [8.9, "HIGH"],
      [9.0, "HIGH"],
      [10, "HIGH"],
    ]);
  });

  it("places a score not rounded to one decimal in the band below the next bound", () => {
    expect(cvssSeverity(3.95, "3.1")).toBe("LOW");
    expect(cvssSeverity(8.99, "4.0")).toBe("HIGH");
    expect(cvssSeverity(0.01, "3.1")).toBe("LOW");
  });

  it.each([-0.1, 10.1, Number.NaN, Number.POSITIVE_INFINITY])("throws for the score %s", (score) => {
    expect(() => cvssSeverity(score, "3.1")).toThrow(RangeError);
  });

  it.each(["3.2", "3", "", "CVSS:3.1", "__proto__"])("throws for the version %j", (version) => {
    expect(() => cvssSeverity(5, version)).toThrow(RangeError);
  });
});
