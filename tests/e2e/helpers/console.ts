import type { ConsoleMessage, Page } from "playwright-core";

export interface ConsoleEntry {
  type: string;
  text: string;
  /** Where the message came from; for "Failed to load resource" it is the resource's URL. */
  url: string;
}

/** A message that a test expects and accepts as a console error. */
export type Allowance = (entry: ConsoleEntry) => boolean;

/**
 * React's hydration problems. Development builds warn in words ("did not
 * match", "hydrated but some attributes…"); the production build the e2e suite
 * runs logs minified recoverable errors instead: #418 (text or HTML did not
 * match), #419/#421/#422/#423 (hydration fell back to client rendering), #425.
 */
const HYDRATION_PROBLEM = /hydrat|did not match|Minified React error #(418|419|421|422|423|425)\b/i;

export interface ConsoleCollector {
  /** Every console message, any type. */
  readonly messages: ConsoleEntry[];
  /** console.error messages, including the browser's own (CSP violations, failed loads). */
  readonly errors: ConsoleEntry[];
  /** Uncaught exceptions and unhandled rejections in the page. */
  readonly pageErrors: string[];
  /** Console messages of any type and page errors that speak of hydration. */
  readonly hydrationWarnings: string[];
  /** Console errors not matched by an allowance, page errors, and hydration warnings, as readable lines. */
  problems(allow?: readonly Allowance[]): string[];
}

function entryOf(message: ConsoleMessage): ConsoleEntry {
  return { type: message.type(), text: message.text(), url: message.location().url };
}

/** Starts recording the page's console from now on, across its document loads. */
export function collectConsole(page: Page): ConsoleCollector {
  const messages: ConsoleEntry[] = [];
  const errors: ConsoleEntry[] = [];
  const pageErrors: string[] = [];
  const hydrationWarnings: string[] = [];

  page.on("console", (message) => {
    const entry = entryOf(message);
    messages.push(entry);
    if (entry.type === "error") errors.push(entry);
    if (HYDRATION_PROBLEM.test(entry.text)) hydrationWarnings.push(`console.${entry.type}: ${entry.text}`);
  });
  page.on("pageerror", (error) => {
    const text = `${error.name}: ${error.message}`;
    pageErrors.push(text);
    if (HYDRATION_PROBLEM.test(text)) hydrationWarnings.push(`page error: ${text}`);
  });

  return {
    messages,
    errors,
    pageErrors,
    hydrationWarnings,
    problems(allow = []) {
      return [
        ...errors.filter((entry) => !allow.some((ok) => ok(entry))).map((entry) => `console.error: ${entry.text} (${entry.url})`),
        ...pageErrors.map((text) => `page error: ${text}`),
        ...hydrationWarnings,
      ];
    },
  };
}

/** The browser's own report that the document at `url` answered 404: expected on the 404 page. */
export function documentNotFound(url: string): Allowance {
  return (entry) => entry.url === url && entry.text === "Failed to load resource: the server responded with a status of 404 (Not Found)";
}

/** A request that the e2e network block (or a test's route) aborted, e.g. a third-party script. */
export function abortedLoad(matches: (url: string) => boolean): Allowance {
  return (entry) => entry.text === "Failed to load resource: net::ERR_FAILED" && matches(entry.url);
}

/** The browser's own report that the document at `url` answered `status` (404, 429, 500…): expected on error pages. */
export function documentStatus(url: string, status: number): Allowance {
  return (entry) => entry.url === url && entry.text.startsWith(`Failed to load resource: the server responded with a status of ${status} `);
}
