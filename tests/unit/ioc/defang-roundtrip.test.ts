import { describe, expect, it } from "vitest";
import { defang } from "../../../shared/ioc/defang";
import { normalizeIndicator } from "../../../shared/ioc/detect";
import { extractIndicators } from "../../../shared/ioc/extract";
import type { Indicator } from "../../../shared/ioc/types";

/*
 * Property test: any defanged spelling of a known-good indicator, alone or in
 * prose, reads back as that indicator. The spellings come from a seeded
 * generator, so a failure names a seed and repeats.
 */

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const GOOD: readonly Indicator[] = [
  { type: "domain", value: "evil.example.com" },
  { type: "domain", value: "login-secure.co.uk" },
  { type: "domain", value: "xn--bcher-kva.de" },
  { type: "ipv4", value: "192.0.2.44" },
  { type: "ip:port", value: "198.51.100.7:8443" },
  { type: "cidr", value: "203.0.113.0/24" },
  { type: "ipv6", value: "2001:db8::42" },
  { type: "email", value: "billing@evil.example.net" },
  { type: "url", value: "http://evil.example.com/gate.php?id=7" },
  { type: "url", value: "https://198.51.100.9:8080/a/b.exe" },
  { type: "url", value: "ftp://files.evil.org/drop/x.bin" },
  { type: "url", value: "tcp://c2.evil.org:4444/" },
  { type: "sha256", value: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
];

const FULL_DOTS = ["[.]", "(.)", "{.}", "[dot]", "(dot)", "{DOT}", "[.)", "(.]"];
const HALF_DOTS = ["[.", "(.", ".]", ".)", "\\."];
const ATS = ["[@]", "(@)", "{@}", "[at]", "(at)"];
const HTTP = ["hxxp", "hXXp", "h**p", "hxtp", "meow", "http"];
const SEPARATORS = ["://", "[://]", "[:]//"];

function pickFrom<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)] as T;
}

/** The host part's dots and at signs defanged at random; a path is left as written. */
function defangHost(random: () => number, host: string, inProse: boolean): string {
  let out = "";
  for (const char of host) {
    if (char === ".") {
      const roll = random();
      if (roll < 0.25) out += ".";
      else if (roll < 0.75) out += inProse && random() < 0.3 ? ` ${pickFrom(random, FULL_DOTS)} ` : pickFrom(random, FULL_DOTS);
      else out += pickFrom(random, HALF_DOTS);
    } else if (char === "@") {
      out += pickFrom(random, ATS);
    } else {
      out += char;
    }
  }
  return out;
}

/** A random defanged spelling of an indicator's canonical value. */
function spell(random: () => number, indicator: Indicator, inProse: boolean): string {
  const { type, value } = indicator;
  if (type === "ipv6" || type.startsWith("sha") || type === "md5") return random() < 0.5 ? value : value.toUpperCase();
  if (type !== "url") return defangHost(random, value, inProse);
  const match = /^([a-z0-9]+):\/\/([^/]+)(\/.*)$/.exec(value);
  if (match === null) throw new Error(`bad test URL ${value}`);
  const [, scheme = "", authority = "", rest = ""] = match;
  const word =
    scheme === "http" ? pickFrom(random, HTTP) : scheme === "https" ? `${pickFrom(random, HTTP)}s` : scheme === "ftp" && random() < 0.5 ? "fxp" : scheme;
  return `${word}${pickFrom(random, SEPARATORS)}${defangHost(random, authority, false)}${rest}`;
}

const ROUNDS = 100;

describe("defanged spellings read back as the indicator", () => {
  it.each(GOOD.map((indicator) => [indicator.value, indicator] as const))("%s, one token", (_value, indicator) => {
    for (let seed = 1; seed <= ROUNDS; seed += 1) {
      const spelling = spell(generator(seed), indicator, false);
      expect(normalizeIndicator(spelling), `seed ${seed}: ${spelling}`).toEqual(indicator);
    }
  });

  it.each(GOOD.map((indicator) => [indicator.value, indicator] as const))("%s, in prose", (_value, indicator) => {
    for (let seed = 1; seed <= ROUNDS; seed += 1) {
      const random = generator(seed * 7919);
      const spelling = spell(random, indicator, true);
      const text = `${pickFrom(random, ["Seen:", "IOC", "- ", "(", '"'])}${pickFrom(random, [" ", "\t", "\u00a0"])}${spelling}${pickFrom(random, [".", ",", ";", ")", '"', "!", ""])} ${pickFrom(random, ["and more.", "\nnext line", ""])}`;
      expect(
        extractIndicators(text).map(({ type, value }) => ({ type, value })),
        `seed ${seed}: ${JSON.stringify(text)}`,
      ).toEqual([indicator]);
    }
  });

  it("our own display form reads back", () => {
    for (const indicator of GOOD) expect(normalizeIndicator(defang(indicator)), defang(indicator)).toEqual(indicator);
  });
});
