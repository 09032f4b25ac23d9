import { services } from "../container";
import { createQrLogin, qrPng } from "../domain/login/qr-login";
import { HOSTED_CLIENT } from "../domain/oidc/browser-session";
import { pageResult } from "../http/browser";
import { route } from "../http/route";
import { qrSignInPage } from "../pages/qr-sign-in";
import { TEXT } from "../pages/text";
import { answeringForm, answeringLink, interactionFields, now, signInProblem, signInVouched } from "./hosted-flow";

/**
 * QR login on the hosted pages (docs/sign-in.md): the desktop shows a code, the user's
 * phone, signed in to an application, confirms it through interface §4.16's QR routes,
 * and the desktop's browser is signed in. The code belongs to the hosted pages
 * (`svc-hosted`), so no application can redeem it at the token endpoint.
 */

const qrStart = route({
  id: "hosted.qr",
  method: "GET",
  path: "/svc/oauth/qr-signin",
  version: "page",
  auth: "none",
  summary: "Sign in with a phone: a QR code for a signed-in phone to confirm",
  tags: ["sign-in"],
  request: { query: { type: "object", properties: { interaction: interactionFields.interaction } } },
  responses: {
    200: { description: "The code, as an image and as text", contentType: "text/html" },
    400: { description: "Expired or forged interaction", contentType: "text/html" },
  },
  handler: (call) =>
    answeringLink(call, call.query.interaction, async (found, lang) => {
      const scopes = (found.query.scope ?? "").split(" ").filter(Boolean);
      const started = await createQrLogin(
        services().qrLogins,
        { clientId: HOSTED_CLIENT, scopes },
        { ip: call.sourceIp, userAgent: call.userAgent },
        now(),
      );
      const page = qrSignInPage({
        lang: lang,
        state: found.state,
        code: started.qr_code,
        png: started.qr_png,
      });
      return pageResult(200, page);
    }),
});

const qrForm = {
  type: "object",
  properties: { ...interactionFields, qr_code: { type: "string", maxLength: 128 } },
} as const;

const qrContinue = route({
  id: "hosted.qr-continue",
  method: "POST",
  path: "/svc/oauth/qr-signin",
  version: "page",
  auth: "none",
  summary: "Sign in with a phone: continue once the phone confirmed",
  description:
    "Confirmed: the account that confirmed signs in (amr qr) and the sign-in goes on to the client. Still pending: the code again. Refused or expired: the sign-in page says so.",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: qrForm, required: true } },
  responses: {
    200: { description: "The code again, or the sign-in page with why not", contentType: "text/html" },
    303: { description: "Signed in: on to consent or the client" },
    400: { description: "Expired or forged form", contentType: "text/html" },
  },
  handler: (call) =>
    answeringForm(call, call.body, async (query, lang) => {
      const t = TEXT[lang];
      const state = { interaction: call.body.interaction as string, csrf: call.body.csrf as string };
      const code = call.body.qr_code ?? "";
      const found = code ? await services().qrLogins.get(code, now()) : undefined;
      if (!found || found.clientId !== HOSTED_CLIENT || found.status === "used")
        return signInProblem(lang, state, query.client_id, t.qrExpired);
      if (found.status === "refused") return signInProblem(lang, state, query.client_id, t.qrRefused);
      if (found.status === "pending" || !found.sub) {
        const page = qrSignInPage({ lang, state, code, png: await qrPng(code), message: t.qrPending });
        return pageResult(200, page);
      }
      return signInVouched(call, { query, state, lang }, found.sub, {
        amr: ["qr"],
        method: "qr",
        // Redeemed in the login's commit: one code signs in one browser, once.
        items: [services().qrLogins.redeemItem(code, HOSTED_CLIENT, now())],
      });
    }),
});

export const hostedQrRoutes = [qrStart, qrContinue];
