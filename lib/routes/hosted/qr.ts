import { pageResult } from "../../http/browser";
import { route } from "../../http/route";
import { qrSignInPage } from "../../pages/qr-sign-in";
import { TEXT } from "../../pages/text";
import { answeringForm, answeringLink, hostedForm, interactionFields, now, originOf } from "./answers";
import { answerDecision } from "./decisions";
import type { HostedUseCases } from "./use-cases";

/**
 * QR login on the hosted pages (docs/sign-in.md): the desktop shows a code, the user's
 * phone, signed in to an application, confirms it through interface §4.16's QR routes,
 * and the desktop's browser is signed in. The code belongs to the hosted pages
 * (`svc-hosted`), so no application can redeem it at the token endpoint.
 */

const qrStart = (uc: HostedUseCases) =>
  route({
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
        const actor = { ip: call.sourceIp, userAgent: call.userAgent };
        const started = await uc.signIn.startQr(scopes, found.state.csrf, actor, now());
        const page = qrSignInPage({ lang, state: found.state, code: started.qr_code, png: started.qr_png });
        return pageResult(200, page);
      }),
  });

const qrForm = hostedForm({ qr_code: { type: "string", maxLength: 128 } });

const qrContinue = (uc: HostedUseCases) =>
  route({
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
      answeringForm(call, call.body, async (opened, lang) => {
        const code = call.body.qr_code ?? "";
        const request = await uc.authorization.loadRequest(opened.query);
        const decision = await uc.signIn.qr(request, code, opened.state.csrf, originOf(call, lang));
        if (decision.kind === "page" && decision.why === "qr_pending") {
          const png = await uc.signIn.qrImage(code);
          const page = qrSignInPage({ lang, state: opened.state, code, png, message: TEXT[lang].qrPending });
          return pageResult(200, page);
        }
        return answerDecision(call, uc, { ...opened, lang }, decision);
      }),
  });

export const qrRoutes = (uc: HostedUseCases) => [qrStart(uc), qrContinue(uc)];
