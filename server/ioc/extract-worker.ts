import { extractIndicators } from "../../shared/ioc/extract";

export interface ExtractTask {
  text: string;
  limit: number;
}

export type ExtractResult = ReturnType<typeof extractIndicators>;

/** Extraction of a pasted text, off the web process's main thread. */
export default function runExtractTask({ text, limit }: ExtractTask): ExtractResult {
  return extractIndicators(text, limit);
}
