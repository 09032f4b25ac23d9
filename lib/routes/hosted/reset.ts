import { ApiError } from "../../domain/errors";
import { HookFailedError } from "../../domain/hooks/ports";
import { ResetCodeError } from "../../domain/passwords/reset-password";
import { pageResult } from "../../http/browser";
import { type HttpResult, route } from "../../http/route";
import type { FormState } from "../../pages/parts";
import { resetCodePage, resetRequestPage } from "../../pages/reset";
import { type Language, TEXT } from "../../pages/text";
import {
  answeringForm,
  answeringLink,
  callerOf,
  hostedForm,
  linkQuery,
  linkResponses,
  now,
  text,
  violationsOf,
} from "./answers";
import { signInPageFor } from "./decisions";
import type { HostedUseCases } from "./use-cases";

/** Forgotten password on the hosted pages (docs/sign-in.md): the login, then a code and a new password. */

const resetStart = route({
  id: "hosted.reset",
  method: "GET",
  path: "/svc/oauth/reset",
  version: "page",
  auth: "none",
  summary: "Forgot password: the form asking for the login, opened from the sign-in page",
  tags: ["sign-in"],
  request: { query: linkQuery },
  responses: linkResponses,
  handler: (call) =>
    answeringLink(call, call.query.interaction, async (found, lang) => {
      const page = resetRequestPage({ lang, state: found.state, loginHint: found.query.login_hint });
      return pageResult(200, page);
    }),
});

const resetRequestForm = hostedForm({ username: { type: "string", maxLength: 256 } });

const resetRequest = (uc: HostedUseCases) =>
  route({
    id: "hosted.reset-request",
    method: "POST",
    path: "/svc/oauth/reset",
    version: "page",
    auth: "none",
    summary: "Forgot password: a code to a confirmed e-mail or phone of the account",
    description:
      "The same page answers whether or not the login names an account. At most 5 codes per account and hour; each code has the attempts and lifetime of confirmation codes.",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: resetRequestForm, required: true } },
    responses: {
      200: { description: "The code and new password form", contentType: "text/html" },
      400: { description: "Expired or forged form", contentType: "text/html" },
    },
    handler: (call) =>
      answeringForm(call, call.body, async (opened, lang) => {
        const login = text(call.body.username);
        const state = opened.state;
        try {
          if (login) await uc.selfService.requestReset(login, callerOf(call, opened.query, lang), now());
        } catch (error) {
          // The userMigration hook failed: fail closed, and say so rather than claim a code went out.
          if (!(error instanceof HookFailedError)) throw error;
          const message = TEXT[lang].hookFailed;
          return pageResult(503, resetRequestPage({ lang, state, loginHint: login, message }));
        }
        return pageResult(200, resetCodePage({ lang, state, login }));
      }),
  });

const resetConfirmForm = hostedForm({
  username: { type: "string", maxLength: 256 },
  code: { type: "string", maxLength: 16 },
  new_password: { type: "string", maxLength: 1024 },
});

/** The code page again, when the code or the new password was refused; anything else is thrown on. */
function refusedReset(error: unknown, lang: Language, state: FormState, login: string): HttpResult {
  const t = TEXT[lang];
  if (error instanceof ResetCodeError)
    return pageResult(200, resetCodePage({ lang, state, login, message: t.resetCodeInvalid }));
  if (!(error instanceof ApiError) || error.status !== 400) throw error;
  const violations = violationsOf(error);
  return pageResult(200, resetCodePage({ lang, state, login, message: t.policy, violations }));
}

const resetConfirm = (uc: HostedUseCases) =>
  route({
    id: "hosted.reset-confirm",
    method: "POST",
    path: "/svc/oauth/reset/confirm",
    version: "page",
    auth: "none",
    summary: "Forgot password: the code and a new password under the policy",
    description:
      "A right code sets the new password and ends every session of the account; the sign-in page follows. A wrong code spends an attempt; a policy refusal keeps the code usable.",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: resetConfirmForm, required: true } },
    responses: {
      200: { description: "The sign-in page, or the form again with what to change", contentType: "text/html" },
      400: { description: "Expired or forged form", contentType: "text/html" },
    },
    handler: (call) =>
      answeringForm(call, call.body, async (opened, lang) => {
        const login = text(call.body.username);
        const { state, query } = opened;
        const input = { login, code: text(call.body.code), password: call.body.new_password ?? "" };
        try {
          await uc.selfService.finishReset(input, callerOf(call, query, lang), now());
        } catch (error) {
          return refusedReset(error, lang, state, login);
        }
        const notice = TEXT[lang].passwordReset;
        const view = { lang, state, clientName: query.client_id, step: "password", loginHint: login, notice } as const;
        return pageResult(200, await signInPageFor(uc, view));
      }),
  });

export const resetRoutes = (uc: HostedUseCases) => [resetStart, resetRequest(uc), resetConfirm(uc)];
