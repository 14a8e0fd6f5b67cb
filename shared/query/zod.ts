import { z } from "zod";

// zod compiles object parsers with `new Function` where it may, and probes
// for that by calling it: the site's CSP forbids eval, so in the browser the
// probe is a reported CSP violation. The query objects parsed here are small,
// so the interpreted parser costs nothing noticeable.
z.config({ jitless: true });

export { z };
