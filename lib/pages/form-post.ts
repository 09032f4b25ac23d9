import { createHash } from "node:crypto";
import { Html, html, PAGE_HEADERS } from "./html";
import { layout } from "./parts";
import { type Language, TEXT } from "./text";

/**
 * OAuth 2.0 Form Post Response Mode: the browser posts the answer to the client's
 * redirect URI. The one script submits the form and is allowed by its hash, so the page's
 * CSP needs no 'unsafe-inline' and admits no other script; without scripts the person
 * presses the button.
 */
const SUBMIT_SCRIPT = "document.forms[0].submit()";
const SUBMIT_SCRIPT_HASH = `sha256-${createHash("sha256").update(SUBMIT_SCRIPT).digest("base64")}`;

export const FORM_POST_HEADERS = {
  ...PAGE_HEADERS,
  "content-security-policy": PAGE_HEADERS["content-security-policy"].replace(
    "script-src 'self'",
    `script-src '${SUBMIT_SCRIPT_HASH}'`,
  ),
};

export function formPostPage(lang: Language, redirectUri: string, params: Record<string, string>): string {
  const t = TEXT[lang];
  const fields = Object.entries(params).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return layout(
    lang,
    t.formPostTitle,
    html`<form method="post" action="${redirectUri}">${fields}<p class="note">${t.formPostNote}</p><button type="submit">${t.continue}</button></form><script>${new Html(SUBMIT_SCRIPT)}</script>`,
  );
}
