import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DATA_DIR } from "../../helpers/paths";

/** Data lines of an abuse.ch list (comments and the CSV header start with "#"). */
function dataLines(file: string): string[] {
  return readFileSync(join(DATA_DIR, "abusech", file), "utf8")
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "" && !line.startsWith("#"));
}

/** The distinct IPs of the Feodo Tracker snapshot, with their last_online day. */
export function feodoEntries(): Array<{ ip: string; firstSeen: string; lastOnline: string; malware: string }> {
  const byIp = new Map<string, { ip: string; firstSeen: string; lastOnline: string; malware: string }>();
  for (const line of dataLines("feodotracker_ipblocklist_2024-04-04.csv")) {
    const fields = line.split(",").map((field) => field.replace(/^"|"$/g, ""));
    const [firstSeen, ip, , , lastOnline, malware] = fields;
    if (ip && /^\d/.test(ip) && !byIp.has(ip)) byIp.set(ip, { ip, firstSeen: firstSeen ?? "", lastOnline: lastOnline ?? "", malware: malware ?? "" });
  }
  return [...byIp.values()];
}

export function malwareBazaarMd5s(): string[] {
  return [...new Set(dataLines("malwarebazaar_recent_md5_2023-11-23.txt").map((line) => line.trim().toLowerCase()))];
}
