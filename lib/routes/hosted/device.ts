import { normalizeUserCode, USER_CODE_TRIES_PER_HOUR } from "../../domain/oauth/user-codes";
import { COOKIES, pageResult, readCookie } from "../../http/browser";
import { type CommonCall, route } from "../../http/route";
import { devicePage } from "../../pages/device";
import { type Language, TEXT } from "../../pages/text";
import { expiredForm, formState, hostedForm, languageFor, now, openForm } from "./answers";
import { authorizationAnswer } from "./authorize";
import type { HostedUseCases } from "./use-cases";

/**
 * The device page (RFC 8628 verification_uri, docs/sign-in.md "Device authorization"): the
 * user types the code a device shows; from there on it is an authorization request of the
 * device's client, signed in and answered on the consent page like any other.
 */

const deviceQuery = {
  type: "object",
  properties: {
    user_code: {
      type: "string",
      maxLength: 32,
      description: "from verification_uri_complete: shown for the user to confirm",
    },
    done: { enum: ["approved", "denied", "expired"], description: "how the user's answer ended" },
    error: { type: "string", maxLength: 64, description: "access_denied: the user denied the device" },
    error_description: { type: "string", maxLength: 512 },
    iss: { type: "string", maxLength: 2048 },
    ui_locales: { type: "string", maxLength: 64 },
  },
} as const;

async function showForm(
  call: CommonCall,
  lang: Language,
  status: number,
  view: { userCode?: string; problem?: string },
) {
  // The page's language travels in its interaction, as in every hosted form.
  const form = await formState({ ui_locales: lang }, readCookie(call.cookies, COOKIES.csrf));
  return pageResult(status, devicePage({ lang, state: form.state, ...view }), form.cookies);
}

const devicePageRoute = () =>
  route({
    id: "hosted.device",
    method: "GET",
    path: "/svc/oauth/device",
    version: "page",
    auth: "none",
    summary: "The device page (RFC 8628 verification_uri): type the code a device shows",
    tags: ["sign-in"],
    request: { query: deviceQuery },
    responses: { 200: { description: "The code form, or how the answer ended", contentType: "text/html" } },
    handler: async (call) => {
      const lang = languageFor(call, { ui_locales: call.query.ui_locales });
      // The consent page's deny comes back as access_denied, as to any client.
      const done = call.query.error === "access_denied" ? "denied" : call.query.done;
      if (done) return pageResult(200, devicePage({ lang, done }));
      return showForm(call, lang, 200, { userCode: call.query.user_code });
    },
  });

const deviceForm = hostedForm({ user_code: { type: "string", maxLength: 32 } });

const deviceCodeRoute = (uc: HostedUseCases) =>
  route({
    id: "hosted.device-code",
    method: "POST",
    path: "/svc/oauth/device",
    version: "page",
    auth: "none",
    summary: "The device page's code: on to the sign-in and the consent page of the device's client",
    description: `An address may try ${USER_CODE_TRIES_PER_HOUR} codes an hour (RFC 8628 5.1); an unknown, answered or expired code gets an error page.`,
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: deviceForm, required: true } },
    responses: {
      200: { description: "The sign-in page, or the consent page of a signed-in browser", contentType: "text/html" },
      400: { description: "Expired or forged form, or an unknown code", contentType: "text/html" },
      429: { description: "Too many codes tried from this address", contentType: "text/html" },
    },
    handler: async (call) => {
      const opened = await openForm(call, call.body);
      const lang = languageFor(call, opened?.query ?? {});
      if (!opened) return expiredForm(lang);
      // Only what could be a code is counted as a try: a typo cannot hit a device.
      if (!normalizeUserCode(call.body.user_code ?? ""))
        return showForm(call, lang, 400, { userCode: call.body.user_code, problem: TEXT[lang].deviceUnknownCode });
      if (!(await uc.authorization.admitUserCodeTry(call.sourceIp ?? "unknown", now())))
        return showForm(call, lang, 429, { problem: TEXT[lang].deviceTooMany });
      const params = { user_code: call.body.user_code ?? "", ui_locales: opened.query.ui_locales };
      return authorizationAnswer(uc, call, params);
    },
  });

export const deviceRoutes = (uc: HostedUseCases) => [devicePageRoute(), deviceCodeRoute(uc)];
