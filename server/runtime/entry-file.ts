/**
 * Where another entry point of the server (a worker thread, a child process)
 * lives. From the TypeScript sources (tests, `npm run dev`) it is the `.ts`
 * file next to the caller, loaded through tsx; from the compiled build every
 * entry point is emitted flat into `dist/server/<name>.js`, next to the
 * bundle that calls it.
 */
export interface EntryFile {
  url: URL;
  /** Node options the new thread or process needs to load it. */
  execArgv: string[];
}

export function entryFile(callerUrl: string, sourcePath: string, builtName: string): EntryFile {
  if (/\.tsx?$/.test(new URL(callerUrl).pathname)) {
    return { url: new URL(sourcePath, callerUrl), execArgv: ["--import", "tsx"] };
  }
  return { url: new URL(`./${builtName}.js`, callerUrl), execArgv: [] };
}
