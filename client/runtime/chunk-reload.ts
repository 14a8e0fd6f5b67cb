import { CHUNK_RELOAD_GUARD_MS } from "../../shared/constants";

const MARKER_KEY = "threat-radar:chunk-reload-at";

export interface ChunkReloadEnvironment {
  storage: Pick<Storage, "getItem" | "setItem">;
  reload: () => void;
  now: () => number;
}

/**
 * After a deployment, an open tab may ask for a page chunk that no longer
 * exists. Reloading fetches the new build; the stored marker makes sure a
 * chunk that is really broken shows the error screen instead of looping.
 */
export function reloadOnceOnChunkFailure(env: ChunkReloadEnvironment) {
  return <T>(load: () => Promise<T>) =>
    () =>
      load().catch((error: unknown) => {
        const last = Number(env.storage.getItem(MARKER_KEY) ?? 0);
        if (env.now() - last < CHUNK_RELOAD_GUARD_MS) throw error;
        env.storage.setItem(MARKER_KEY, String(env.now()));
        env.reload();
        return new Promise<T>(() => {});
      });
}
