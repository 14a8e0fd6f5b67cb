import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/paths";

/**
 * The binding of a page to its loader is a compile-time guarantee, so it is
 * tested by compiling: the real sources, with one file swapped for an edited
 * copy, go through the TypeScript compiler with the project's settings, and
 * the errors it reports are what this file asserts.
 */

const LOADERS = "server/loaders/page-loaders.ts";
const PAGE_ROUTES = "shared/routes/page-routes.ts";
const HOME_PAGE = "shared/pages/home/page.ts";

/**
 * Edited copies of the loader table, next to the real one so that its relative
 * imports resolve; they exist only in the compiler's view, as does the fixture
 * that reads page data. Files of one program may not replace the same real
 * file twice, so these all share one program and the edits of shared files
 * get a program each.
 */
const LOADERS_WITHOUT_ONE = "server/loaders/page-loaders.without-one.fixture.ts";
const LOADERS_WRONG_DATA = "server/loaders/page-loaders.wrong-data.fixture.ts";
const LOADERS_UNKNOWN_PAGE = "server/loaders/page-loaders.unknown-page.fixture.ts";
const READS_OWN_DATA = "tests/unit/shell/reads-own-data.fixture.ts";
const READS_OTHER_DATA = "tests/unit/shell/reads-other-data.fixture.ts";

type Overlay = Readonly<Record<string, string>>;

let options: ts.CompilerOptions;
let previous: ts.Program | undefined;

beforeAll(() => {
  const config = ts.readConfigFile(join(PROJECT_ROOT, "tsconfig.json"), ts.sys.readFile);
  options = ts.parseJsonConfigFileContent(config.config, ts.sys, PROJECT_ROOT).options;
});

function source(file: string): string {
  return readFileSync(join(PROJECT_ROOT, file), "utf8");
}

/** `file` with `from` replaced by `to`; throws when `from` is not there, so an edit of the real file cannot make a case vacuous. */
function edited(file: string, from: string, to: string): string {
  const text = source(file);
  if (!text.includes(from)) throw new Error(`${file} no longer contains ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

function readsPageData(declared: string): string {
  return [
    'import type { CveListData } from "../../../shared/cve/list-types";',
    'import type { cveDetailPage, CveDetailPageData } from "../../../shared/pages/cve-detail/page";',
    'import { usePageData } from "../../../shared/routes/page-data";',
    `export function read(): ${declared} {`,
    "  return usePageData<typeof cveDetailPage>();",
    "}",
  ].join("\n");
}

/**
 * Compiles `roots` with the project's settings, the files of `overlay` read
 * in place of (or next to) the real ones, and returns the errors in one file.
 */
function compile(roots: readonly string[], overlay: Overlay = {}): (file: string) => string {
  const byPath = new Map(Object.entries(overlay).map(([name, text]) => [join(PROJECT_ROOT, name), text]));
  const host = ts.createCompilerHost(options, true);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => byPath.get(name) ?? readFile(name);
  host.fileExists = (name) => byPath.has(name) || fileExists(name);
  host.getSourceFile = (name, language, onError, create) => {
    const text = byPath.get(name);
    return text === undefined ? getSourceFile(name, language, onError, create) : ts.createSourceFile(name, text, language, true);
  };
  // Reusing the last program spares re-parsing the files an overlay leaves alone.
  const program = ts.createProgram({ rootNames: roots.map((file) => join(PROJECT_ROOT, file)), options, host, oldProgram: previous });
  previous = program;
  return (file) => {
    const target = program.getSourceFile(join(PROJECT_ROOT, file));
    if (!target) throw new Error(`${file} is not part of the program`);
    const diagnostics = [...program.getSyntacticDiagnostics(target), ...program.getSemanticDiagnostics(target)];
    return diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")).join("\n");
  };
}

describe("a page's loader is checked against the page by the typecheck", { timeout: 120_000 }, () => {
  let errorsIn: (file: string) => string;
  beforeAll(() => {
    const overlay = {
      [LOADERS_WITHOUT_ONE]: edited(LOADERS, '  "ioc-detail": loadIocDetail,\n', ""),
      [LOADERS_WRONG_DATA]: edited(LOADERS, '"cve-detail": loadCveDetail,', '"cve-detail": loadCveList,'),
      [LOADERS_UNKNOWN_PAGE]: edited(
        LOADERS,
        "  home: (_args, context) => loadHome(context),",
        "  home: (_args, context) => loadHome(context),\n  about: (_args, context) => loadHome(context),",
      ),
      [READS_OWN_DATA]: readsPageData("CveDetailPageData"),
      [READS_OTHER_DATA]: readsPageData("CveListData"),
    };
    errorsIn = compile([LOADERS, ...Object.keys(overlay)], overlay);
  }, 120_000);

  it("accepts the product's table as it is", () => {
    expect(errorsIn(LOADERS)).toBe("");
  });

  it("fails when a page's loader is taken out of the table", () => {
    expect(errorsIn(LOADERS_WITHOUT_ONE)).toMatch(/Property '"ioc-detail"' is missing/);
  });

  it("fails when a loader returns another page's data", () => {
    expect(errorsIn(LOADERS_WRONG_DATA)).toMatch(/is not assignable to type 'ServerPageLoader<CveDetailPageData>'/);
  });

  it("fails when the table names a loader for a page that does not exist", () => {
    expect(errorsIn(LOADERS_UNKNOWN_PAGE)).toMatch(/'about' does not exist in type 'ServerPageLoaders'/);
  });

  it("fails when a page of the route table has no loader", () => {
    const withNewPage = edited(
      PAGE_ROUTES,
      "export const pageRoutes = [homePage,",
      [
        'import { definePage } from "./define-page";',
        'const aboutPage = definePage<{ text: string }>()({ id: "about", path: "/about", module: "shared/pages/about/AboutPage.tsx",',
        '  load: async () => ({ Component: () => null, meta: () => ({ title: "About", description: "" }) }) });',
        "export const pageRoutes = [aboutPage, homePage,",
      ].join("\n"),
    );
    expect(compile([LOADERS], { [PAGE_ROUTES]: withNewPage })(LOADERS)).toMatch(/Property 'about' is missing/);
  });

  it("fails when a page's declared data no longer matches what its loader returns", () => {
    const otherData = edited(HOME_PAGE, "definePage<HomeData>()", "definePage<{ greeting: string }>()");
    expect(compile([LOADERS], { [HOME_PAGE]: otherData })(LOADERS)).toMatch(/'HomeData' is not assignable to type 'LoaderResult<\{ greeting: string; \}>'/);
  });

  it("types a page's usePageData by its definition, so its component needs no cast", () => {
    expect(errorsIn(READS_OWN_DATA)).toBe("");
    expect(errorsIn(READS_OTHER_DATA)).toMatch(/'CveDetailPageData' is missing the following properties from type 'CveListData'/);
  });
});
