import { BENIGN_PENALTY, DEFAULT_CONFIDENCE, DEFAULT_SOURCE_WEIGHT, HALF_LIFE_DAYS, SOURCE_WEIGHTS, VERDICT_THRESHOLDS } from "../../scoring/ioc-score";

export function ScoreExplainer() {
  return (
    <section id="ioc-score" className="explainer">
      <h2>How the IOC score is computed</h2>
      <p>
        A transparent 0–100 score. Each feed that reported the value adds its weight (
        {Object.entries(SOURCE_WEIGHTS)
          .map(([source, weight]) => `${source} ${weight}`)
          .join(", ")}
        , others {DEFAULT_SOURCE_WEIGHT}) times the confidence it reported ({DEFAULT_CONFIDENCE * 100} % when it gave none); the sum is capped at 100. Evidence
        then decays with the time since the value was last seen: it keeps 50 % plus 50 % halved every {HALF_LIFE_DAYS} days. A value on a known-benign list
        loses {BENIGN_PENALTY * 100} % of what is left and is always flagged. From {VERDICT_THRESHOLDS.malicious} the verdict is “malicious”, from{" "}
        {VERDICT_THRESHOLDS.suspicious} “suspicious”, below that “low”.
      </p>
    </section>
  );
}
