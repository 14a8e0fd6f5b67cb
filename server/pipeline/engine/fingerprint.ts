import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { pipeline } from "node:stream/promises";

/** SHA-256 of a file's bytes. */
export async function fingerprintFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
}

/** Every regular file under `dir`, symbolic links followed, in a stable order. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    // stat, not lstat: a mirror made of symbolic links is read through them.
    const info = await stat(path);
    if (info.isDirectory()) found.push(...(await filesUnder(path)));
    else if (info.isFile()) found.push(path);
  }
  return found;
}

/**
 * What a local location holds, as one hash: a file's bytes, or a
 * directory's relative paths and each file's bytes. The same hash as last
 * time means the import has nothing new to read.
 */
export async function fingerprintLocation(location: string): Promise<string> {
  const info = await stat(location);
  if (!info.isDirectory()) return fingerprintFile(location);
  const hash = createHash("sha256");
  for (const file of await filesUnder(location)) hash.update(`${relative(location, file)}\0${await fingerprintFile(file)}\n`);
  return hash.digest("hex");
}
