import { config } from "../config/current";
import { bindDeps } from "../container";
import { takeAnsweredState, toProvider } from "../domain/federation/bind";
import { completeFederatedSignIn } from "../domain/federation/federated-sign-in";
import { findProvider, splitFp } from "../domain/federation/providers";
import { COOKIES, openInteraction, pageResult, readCookie, seeOther } from "../http/browser";
import { route } from "../http/route";
import { errorPage } from "../pages/error";
import { TEXT } from "../pages/text";
import {
  answeringErrors,
  answeringLink,
  expiredForm,
  languageFor,
  now,
  signInProblem,
  signInVouched,
} from "./hosted-flow";

/**
 * "Sign in with <provider>" on the hosted pages (docs/sign-in.md): the federation module's
 * bind state and code exchange, answered at a callback of the hosted pages.
 */

/** Where providers send the browser back; registered at each provider beside the bind callback. */
export function federatedCallbackUrl(): string {
  return `${config().issuer}/oauth/federated/callback`;
}

const startQuery = {
  type: "object",
  properties: {
    interaction: { type: "string", maxLength: 16384 },
    fp: { type: "string", maxLength: 200, description: "<type>:<name> of a configured provider" },
  },
} as const;

const federatedStart = route({
  id: "hosted.federated",
  method: "GET",
  path: "/svc/oauth/federated",
  version: "page",
  auth: "none",
  summary: "Sign in with an external provider: on to the provider, with a single-use state and PKCE",
  tags: ["sign-in"],
  request: { query: startQuery },
  responses: {
    303: { description: "To the provider's authorization endpoint" },
    400: { description: "Expired interaction or unknown provider", contentType: "text/html" },
  },
  handler: (call) =>
    answeringLink(call, call.query.interaction, async (found, lang) => {
      const { fpType, fpName } = splitFp(call.query.fp ?? "");
      const provider = findProvider(config().settings.federation.providers, fpType, fpName);
      const pageLang = lang;
      if (!provider) return pageResult(400, errorPage(pageLang, TEXT[pageLang].providerFailed(fpName || "?")));
      const url = await toProvider(
        bindDeps(),
        provider,
        {
          sub: "",
          clientId: found.query.client_id,
          callback: "",
          redirectUri: federatedCallbackUrl(),
          interaction: found.state.interaction,
        },
        now() + config().settings.federation.stateTtlSeconds,
      );
      return seeOther(url.toString());
    }),
});

const callbackQuery = {
  type: "object",
  properties: {
    state: { type: "string", maxLength: 1024 },
    code: { type: "string", maxLength: 4096 },
    error: { type: "string", maxLength: 256 },
  },
} as const;

const federatedCallback = route({
  id: "hosted.federated-callback",
  method: "GET",
  path: "/svc/oauth/federated/callback",
  version: "page",
  auth: "none",
  summary: "The provider's answer to a hosted sign-in: the linked account signs in",
  description:
    "Register this URL at each provider used for sign-in (docs/sign-in.md). The state must have been started by this browser (its CSRF cookie opens the sign-in it carries). An external account linked to an account (interface §4.9) signs that account in; otherwise the sign-in page says why.",
  tags: ["sign-in"],
  request: { query: callbackQuery },
  responses: {
    200: { description: "The sign-in page with what went wrong", contentType: "text/html" },
    303: { description: "Signed in: on to consent or the client" },
    400: { description: "A forged, used or expired state, or another browser's", contentType: "text/html" },
  },
  handler: async (call) => {
    const lang = call.language;
    return answeringErrors(lang, async () => {
      const taken = await takeAnsweredState(bindDeps(), call.query, now());
      const csrf = readCookie(call.cookies, COOKIES.csrf);
      const query = taken?.interaction && csrf ? await openInteraction(taken.interaction, csrf, now()) : undefined;
      if (!taken?.interaction || !csrf || !query) return expiredForm(lang);
      const pageLang = languageFor(call, query);
      const t = TEXT[pageLang];
      const state = { interaction: taken.interaction, csrf };
      const outcome = await completeFederatedSignIn(bindDeps(), taken, call.query, now());
      if (outcome.ok) {
        return signInVouched(call, { query, state, lang: pageLang }, outcome.sub, {
          amr: ["fed"],
          method: "federated",
          // The provider vouches for one factor; an account that needs two signs in with password and code.
          refusal: (account) => (account.requiredFactor === 2 ? t.factorsNeeded : undefined),
        });
      }
      const problem = outcome.problem === "not_linked" ? t.notLinked(taken.fpName) : t.providerFailed(taken.fpName);
      return signInProblem(pageLang, state, query.client_id, problem);
    });
  },
});

export const hostedFederationRoutes = [federatedStart, federatedCallback];
