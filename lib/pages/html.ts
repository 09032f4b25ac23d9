/** Markup that is already safe: produced by `html` or a constant of ours. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Part = Html | string | number | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === false) return "";
  if (part instanceof Html) return part.markup;
  if (Array.isArray(part)) return part.map(render).join("");
  return escapeHtml(String(part));
}

/** A template whose every interpolated value is escaped unless it is Html already. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ""), ""));
}

/** The one style sheet of every page we serve (lib/pages/style.css.txt), from our own origin. */
export const STYLE_PATH = "/svc/oauth/style.css";

/** Ours, then the operator's theme (lib/pages/brand.ts) when one is configured: linked last, it wins. */
export function styleSheets(theme?: string): Html {
  return html`<link rel="stylesheet" href="${STYLE_PATH}">${theme ? html`<link rel="stylesheet" href="${theme}">` : ""}`;
}

/** The error shaper's bare page (below) has our look only: it must render whatever failed. */
export const STYLESHEETS = styleSheets();

/** Only our own script and style files, no inline ones, no framing; never cached, never sent as a referrer. */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'`,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

/** A bare page for errors that reach the error shaper; the request id lets support find the log. */
export function plainErrorPage(status: number, message: string): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error ${status}</title>${STYLESHEETS}</head><body><main class="card"><h1>Error ${status}</h1><p role="alert">${message}</p></main></body></html>`
    .markup;
}
