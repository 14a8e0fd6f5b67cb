import { describe, expect, it } from "vitest";
import { BENIGN_PENALTY, DEFAULT_SOURCE_WEIGHT, HALF_LIFE_DAYS, scoreIndicator, SOURCE_WEIGHTS } from "../../../shared/scoring/ioc-score";

const NOW = new Date("2025-01-24T00:00:00Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();

describe("IOC score", () => {
  it("is unknown and 0 without sightings", () => {
    const score = scoreIndicator([], NOW, false);
    expect(score).toMatchObject({ score: 0, verdict: "unknown", evidence: 0, contributions: [], daysSinceLastSeen: null });
  });

  it("adds weight × confidence per source and keeps everything when seen today", () => {
    const score = scoreIndicator(
      [
        { source: "feodotracker", confidence: 100, firstSeen: daysAgo(10), lastSeen: daysAgo(0) },
        { source: "tweetfeed", confidence: null, firstSeen: daysAgo(3), lastSeen: null },
      ],
      NOW,
      false,
    );
    expect(score.contributions).toEqual([
      { source: "feodotracker", weight: SOURCE_WEIGHTS.feodotracker, reportedConfidence: 100, points: 60 },
      { source: "tweetfeed", weight: SOURCE_WEIGHTS.tweetfeed, reportedConfidence: null, points: 26.3 },
    ]);
    expect(score.evidence).toBe(86.3);
    expect(score.daysSinceLastSeen).toBe(0);
    expect(score.decayPoints).toBe(0);
    expect(score.score).toBe(86.3);
    expect(score.verdict).toBe("malicious");
  });

  it("caps the evidence at 100 and counts a feed once, by its strongest statement", () => {
    const sightings = ["feodotracker", "urlhaus", "threatfox", "threatfox"].map((source, index) => ({
      source,
      confidence: index === 3 ? 10 : 100,
      firstSeen: null,
      lastSeen: daysAgo(0),
    }));
    const score = scoreIndicator(sightings, NOW, false);
    expect(score.contributions.map((c) => c.source)).toEqual(["feodotracker", "urlhaus", "threatfox"]);
    expect(score.evidence).toBe(100);
    expect(score.score).toBe(100);
  });

  it("decays by half of the evidence over a half-life, towards half of it", () => {
    const sighting = { source: "unlisted-feed", confidence: 100, firstSeen: null, lastSeen: daysAgo(HALF_LIFE_DAYS) };
    const month = scoreIndicator([sighting], NOW, false);
    expect(month.evidence).toBe(DEFAULT_SOURCE_WEIGHT);
    expect(month.recencyFactor).toBe(0.75);
    expect(month.score).toBeCloseTo(DEFAULT_SOURCE_WEIGHT * 0.75, 0);
    const old = scoreIndicator([{ ...sighting, lastSeen: daysAgo(3650) }], NOW, false);
    expect(old.score).toBeCloseTo(DEFAULT_SOURCE_WEIGHT / 2, 1);
    expect(old.verdict).toBe("low");
  });

  it("uses the first seen when a feed gives no last seen", () => {
    const score = scoreIndicator([{ source: "feodotracker", confidence: 100, firstSeen: daysAgo(60), lastSeen: null }], NOW, false);
    expect(score.daysSinceLastSeen).toBe(60);
  });

  it("penalises and flags a benign-listed value whatever its score", () => {
    const score = scoreIndicator([{ source: "feodotracker", confidence: 100, firstSeen: null, lastSeen: daysAgo(0) }], NOW, true);
    expect(score.benignPenaltyPoints).toBe(60 * BENIGN_PENALTY);
    expect(score.score).toBe(12);
    expect(score.verdict).toBe("benign-listed");
    expect(scoreIndicator([], NOW, true).verdict).toBe("benign-listed");
  });

  it("the score is the evidence minus decay minus penalty, within 0–100", () => {
    for (const days of [0, 1, 7, 30, 90, 400]) {
      for (const benign of [false, true]) {
        const score = scoreIndicator(
          [
            { source: "malwarebazaar", confidence: 80, firstSeen: null, lastSeen: daysAgo(days) },
            { source: "maltrail", confidence: null, firstSeen: null, lastSeen: daysAgo(days + 5) },
          ],
          NOW,
          benign,
        );
        expect(score.score).toBeCloseTo(score.evidence - score.decayPoints - score.benignPenaltyPoints, 1);
        expect(score.score).toBeGreaterThanOrEqual(0);
        expect(score.score).toBeLessThanOrEqual(100);
      }
    }
  });
});
