import { createHash } from "node:crypto";

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

/** The one style sheet; allowed by its hash, so the CSP needs no 'unsafe-inline'. */
export const STYLE = `
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}
input{width:100%;padding:.5rem;box-sizing:border-box;font-size:1rem}
button{margin-top:1rem;padding:.6rem 1.2rem;font-size:1rem}
.error{color:#a00;border-left:3px solid #a00;padding-left:.6rem}.note{color:#444}
ul.links{padding-left:1rem}a:focus,button:focus,input:focus{outline:3px solid #1a5fb4}
`;

export const STYLE_HASH = `sha256-${createHash("sha256").update(STYLE).digest("base64")}`;

/** Only our own script files (the passkey script), no framing, styles only by hash; never cached, never sent as a referrer. */
export const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `default-src 'none'; script-src 'self'; style-src '${STYLE_HASH}'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'`,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
} as const;

/** A bare page for errors that reach the error shaper; the request id lets support find the log. */
export function plainErrorPage(status: number, message: string): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error ${status}</title><style>${new Html(STYLE)}</style></head><body><main><h1>Error ${status}</h1><p role="alert">${message}</p></main></body></html>`
    .markup;
}
