import { createHash } from "node:crypto";
import STYLE from "../compiled/console-app.css.txt";
import SCRIPT from "../compiled/console-app.js.txt";
import { type CommonCall, group, type HttpResult, route } from "../http/route";

/**
 * The admin console (docs/console.md): a single-page application whose files this group
 * serves from the committed bundle (npm run build-console). It signs in through the provider
 * as the public client svc-console and calls the management API; it holds no server logic.
 */

/** The console's address and its redirect URI; its route is `/svc/console`, since a route path cannot end in a slash. */
export const CONSOLE_PATH = "/svc/console/";

/** Only our own files, no inline script or style, fetches to our own origin, no framing. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const COMMON_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
} as const;

/** The files' addresses carry their content's digest, so browsers may keep them for a year. */
const version = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 12);
const SCRIPT_URL = `${CONSOLE_PATH}app.js?v=${version(SCRIPT)}`;
const STYLE_URL = `${CONSOLE_PATH}app.css?v=${version(STYLE)}`;
const IMMUTABLE = "public, max-age=31536000, immutable";

/** ru or en, whichever the browser lists first; otherwise the operator's default. */
export function consoleLanguage(acceptLanguage: string | undefined, fallback: "ru" | "en"): "ru" | "en" {
  for (const range of (acceptLanguage ?? "").split(",")) {
    const tag = range.trim().toLowerCase();
    if (tag.startsWith("ru")) return "ru";
    if (tag.startsWith("en")) return "en";
  }
  return fallback;
}

/** The shell: the script draws everything, in the language of `<html lang>`. */
function indexPage(lang: "ru" | "en"): string {
  const title = lang === "ru" ? "Консоль администратора" : "Admin console";
  const noScript = lang === "ru" ? "Для консоли нужен JavaScript." : "The console needs JavaScript.";
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><link rel="stylesheet" href="${STYLE_URL}"><script type="module" src="${SCRIPT_URL}"></script></head><body><div id="app"><main id="main"><h1>${title}</h1><noscript><p>${noScript}</p></noscript></main></div></body></html>`;
}

const file = (contentType: string, body: string, cacheControl: string): HttpResult => ({
  statusCode: 200,
  headers: { "content-type": contentType, "cache-control": cacheControl, ...COMMON_HEADERS },
  body,
});

/** One of the bundle's files, at a versioned address. */
const bundled = (name: string, fileName: string, summary: string, type: string, text: string) =>
  route({
    id: `console.${name}`,
    method: "GET",
    path: `${CONSOLE_PATH}${fileName}`,
    version: "page",
    auth: "none",
    summary,
    tags: ["console"],
    responses: { 200: { description: type, contentType: type } },
    handler: async () => file(`${type}; charset=utf-8`, text, IMMUTABLE),
  });

/** The console's routes; `defaultLanguage` is the settings' language for a browser that names neither. */
export const consoleRoutes = (uc: { defaultLanguage(): "ru" | "en" }) =>
  group("console", [
    route({
      id: "console.index",
      method: "GET",
      path: "/svc/console",
      version: "page",
      auth: "none",
      summary: "The admin console (docs/console.md): the page that loads its script",
      description:
        "Served at /svc/console/ (the address API Gateway routes here; the page's relative base). Its language (html lang) is the first of ru and en in Accept-Language, else the settings' defaultLanguage. Never cached, so a deployment's new script is picked up at once.",
      tags: ["console"],
      responses: { 200: { description: "HTML", contentType: "text/html" } },
      handler: async (call: CommonCall) =>
        file(
          "text/html; charset=utf-8",
          indexPage(consoleLanguage(call.headers["accept-language"], uc.defaultLanguage())),
          "no-cache",
        ),
    }),
    bundled(
      "script",
      "app.js",
      "The admin console's script (console/, bundled by npm run build-console)",
      "text/javascript",
      SCRIPT,
    ),
    bundled("style", "app.css", "The admin console's style sheet", "text/css", STYLE),
  ]);
