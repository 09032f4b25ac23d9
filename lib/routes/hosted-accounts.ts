import { loginDeps, passwordResetDeps, registrationDeps, services } from "../container";
import { ApiError } from "../domain/errors";
import { HookFailedError } from "../domain/hooks/ports";
import type { PolicyViolation } from "../domain/passwords/policy";
import { finishPasswordReset, ResetCodeError, requestPasswordReset } from "../domain/passwords/reset-password";
import { confirmRegistration } from "../domain/registration/confirm";
import { type Instruction, instructionsOf } from "../domain/registration/instructions";
import { type RegistrationResponse, register } from "../domain/registration/register";
import { pageResult } from "../http/browser";
import { type CommonCall, type HttpResult, route } from "../http/route";
import type { FormState } from "../pages/parts";
import { type RegistrationFields, registerCodesPage, registerPage, type WaitingContact } from "../pages/registration";
import { resetCodePage, resetRequestPage } from "../pages/reset";
import { type Language, TEXT } from "../pages/text";
import {
  answeringForm,
  answeringLink,
  expiredForm,
  interactionFields,
  loadRequest,
  now,
  signInBrowser,
  signInPageFor,
} from "./hosted-flow";

/**
 * Registration and forgotten password on the hosted pages (docs/sign-in.md): both reached
 * from the sign-in page, both carrying its signed authorization request, and both ending
 * back in the sign-in.
 */

/** The form's own hidden fields, to render the next page of the same interaction. */
function stateOf(form: Readonly<Record<string, unknown>>) {
  return { interaction: form.interaction as string, csrf: form.csrf as string };
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

/** The registration or reset acts for the client the sign-in is for. */
function callerOf(call: CommonCall, query: Record<string, string>, lang: Language) {
  return {
    clientId: query.client_id,
    language: lang,
    ip: call.sourceIp,
    userAgent: call.userAgent,
    sessionCookie: false,
  };
}

const linkQuery = { type: "object", properties: { interaction: interactionFields.interaction } } as const;

const linkResponses = {
  200: { description: "The form", contentType: "text/html" },
  303: { description: "Back to the client with an error" },
  400: { description: "Expired or forged interaction", contentType: "text/html" },
} as const;

const registerStart = route({
  id: "hosted.register",
  method: "GET",
  path: "/svc/oauth/register",
  version: "page",
  auth: "none",
  summary: "The registration form, opened from the sign-in page",
  tags: ["sign-in"],
  request: { query: linkQuery },
  responses: linkResponses,
  handler: (call) =>
    answeringLink(call, call.query.interaction, async (found, lang) => {
      return pageResult(200, registerPage({ lang: lang, state: found.state }));
    }),
});

const registrationForm = {
  type: "object",
  properties: {
    ...interactionFields,
    given_name: { type: "string", maxLength: 256 },
    family_name: { type: "string", maxLength: 256 },
    middle_name: { type: "string", maxLength: 256 },
    email: { type: "string", maxLength: 254 },
    phone: { type: "string", maxLength: 32 },
    password: { type: "string", maxLength: 1024 },
  },
} as const;

/** What a refused registration says, field by field, in the page's language. */
function registrationMessages(error: ApiError, lang: Language): string[] {
  const t = TEXT[lang];
  const listed = (error.details.errors as Array<{ error: string; pos?: string; desc?: string }> | undefined) ?? [
    { error: error.error, pos: error.details.pos as string | undefined },
  ];
  const label = (pos: string | undefined) => t.field[pos ?? ""] ?? pos ?? "";
  return listed
    .filter((p) => p.pos !== "password")
    .map((p) => {
      if (p.error === "already_used") return t.alreadyUsed(label(p.pos));
      if (p.error === "message_not_sent") return t.notSent;
      // The preRegistration hook's own words (docs/hooks.md).
      if (p.error === "registration_refused") return p.desc ?? error.desc;
      return t.fieldInvalid(label(p.pos));
    });
}

/** The contacts a registration still waits for, from its interface §3.3 instructions. */
function waitingOf(instructions: Instruction[]): WaitingContact[] {
  return instructions.flatMap((i): WaitingContact[] => {
    if (i.email !== undefined) return [{ channel: "email", to: i.email }];
    if (i.mobile !== undefined) return [{ channel: "sms", to: i.mobile }];
    return [];
  });
}

/**
 * Registered: the browser is signed in as the new account and goes on with the request,
 * checked against the client's record as it is now.
 */
async function registered(call: CommonCall, query: Record<string, string>, response: RegistrationResponse) {
  const account = await services().accounts.get(response.subject as string);
  if (!account) throw new Error("a registered account could not be read back");
  return signInBrowser(call, { query, ...(await loadRequest(query)) }, account, {
    amr: ["pwd"],
    method: "registration",
    deps: loginDeps(),
    failuresOnRecord: false,
  });
}

/** The codes page, or the sign-in once nothing waits any more. */
async function afterRegistrationStep(
  call: CommonCall,
  query: Record<string, string>,
  lang: Language,
  response: RegistrationResponse,
  page: { state: FormState; message?: string; notice?: string },
): Promise<HttpResult> {
  if (response.subject && response.instructions.length === 0) return registered(call, query, response);
  const waiting = waitingOf(response.instructions);
  return pageResult(200, registerCodesPage({ lang, context: response.context, waiting, ...page }));
}

const registerSubmit = route({
  id: "hosted.register-submit",
  method: "POST",
  path: "/svc/oauth/register",
  version: "page",
  auth: "none",
  summary: "Registration: names, e-mail and/or phone, and a password under the policy",
  description:
    "Runs the registration of interface §4.4 for the client of the sign-in. A code goes to each contact; the codes page follows. Refusals (policy, a used e-mail or phone) show the form again with what to change.",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: registrationForm, required: true } },
  responses: {
    200: { description: "The codes page, or the form with what to change", contentType: "text/html" },
    303: { description: "Registered without codes to wait for: on to the client" },
    400: { description: "Expired or forged form", contentType: "text/html" },
  },
  handler: (call) =>
    answeringForm(call, call.body, async (query, lang) => {
      const form = call.body;
      const fields: RegistrationFields = {
        given_name: text(form.given_name),
        family_name: text(form.family_name),
        middle_name: text(form.middle_name),
        email: text(form.email),
        phone: text(form.phone),
      };
      const password = typeof form.password === "string" ? form.password : "";
      const again = (messages: string[], violations?: PolicyViolation[]) =>
        pageResult(200, registerPage({ lang, state: stateOf(form), fields, messages, violations }));
      if (!fields.email && !fields.phone) return again([TEXT[lang].contactRequired]);
      const attrs = {
        ...(fields.given_name && { given_name: fields.given_name }),
        ...(fields.family_name && { family_name: fields.family_name }),
        ...(fields.middle_name && { middle_name: fields.middle_name }),
        ...(fields.email && { email: { value: fields.email, verified: false } }),
        ...(fields.phone && { phone_number: { value: fields.phone, verified: false } }),
      };
      try {
        const response = await register(
          { user: { attrs, credentials: { password } } },
          callerOf(call, query, lang),
          registrationDeps(),
        );
        return await afterRegistrationStep(call, query, lang, response, { state: stateOf(form) });
      } catch (error) {
        if (!(error instanceof ApiError) || error.status >= 500) {
          if (error instanceof ApiError && error.error === "message_not_sent") return again([TEXT[lang].notSent]);
          if (error instanceof ApiError && error.error === "hook_failed") return again([TEXT[lang].hookFailed]);
          throw error;
        }
        // The registration's own check, worded for the page: the password is looked up once.
        return again(registrationMessages(error, lang), violationsOf(error));
      }
    }),
});

const codesForm = {
  type: "object",
  properties: {
    ...interactionFields,
    context: { type: "string", maxLength: 64 },
    email_code: { type: "string", maxLength: 16 },
    sms_code: { type: "string", maxLength: 16 },
    resend: { enum: ["email", "sms"] },
  },
} as const;

const registerConfirm = route({
  id: "hosted.register-confirm",
  method: "POST",
  path: "/svc/oauth/register/confirm",
  version: "page",
  auth: "none",
  summary: "The registration's codes, or a new code for one contact",
  description:
    "Each code is checked as in interface §4.5 (attempts, expiry, resend cap). Once every contact is confirmed the account exists, the browser is signed in, and the sign-in goes on to the client.",
  tags: ["sign-in"],
  request: { body: { contentType: "form", schema: codesForm, required: true } },
  responses: {
    200: { description: "The codes page again, with what happened", contentType: "text/html" },
    303: { description: "Registered: on to the client" },
    400: { description: "Expired or forged form, or an unknown registration", contentType: "text/html" },
  },
  handler: (call) =>
    answeringForm(call, call.body, async (query, lang) => {
      const context = call.body.context;
      if (!context) return expiredForm(lang);
      const t = TEXT[lang];
      const caller = callerOf(call, query, lang);
      const deps = registrationDeps();
      const state = stateOf(call.body);
      try {
        if (call.body.resend) {
          const action = call.body.resend === "email" ? "email_code_resend" : "sms_code_resend";
          const response = await confirmRegistration(context, { [action]: "1" }, caller, deps);
          return await afterRegistrationStep(call, query, lang, response, { state, notice: t.codeResent });
        }
        const submitted = (
          [
            ["email_code", "email", call.body.email_code],
            ["sms_code", "mobile", call.body.sms_code],
          ] as const
        ).filter(([, , value]) => value);
        let response: RegistrationResponse | undefined;
        for (const [action, , value] of submitted) {
          response = await confirmRegistration(context, { [action]: (value as string).trim() }, caller, deps);
        }
        if (!response) return expiredForm(lang);
        // A contact whose code was just sent in and that still waits: the code was wrong or stale.
        const stillWaiting = response.instructions.find((i) => submitted.some(([, key]) => i[key] !== undefined));
        const message = stillWaiting ? t.codeWrong(stillWaiting.attemts ?? 0) : undefined;
        return await afterRegistrationStep(call, query, lang, response, { state, message });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.error === "unknown_context") return expiredForm(lang);
        if (error.error === "too_many_codes") {
          const pending = await deps.registrations.get(context, now());
          if (!pending) return expiredForm(lang);
          const response = { context, instructions: instructionsOf(pending, deps.settings.codes.attempts, now()) };
          return afterRegistrationStep(call, query, lang, response, { state, message: t.tooManyCodes });
        }
        throw error;
      }
    }),
});

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
      const page = resetRequestPage({
        lang: lang,
        state: found.state,
        loginHint: found.query.login_hint,
      });
      return pageResult(200, page);
    }),
});

const resetRequestForm = {
  type: "object",
  properties: { ...interactionFields, username: { type: "string", maxLength: 256 } },
} as const;

const resetRequest = route({
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
    answeringForm(call, call.body, async (query, lang) => {
      const login = text(call.body.username);
      try {
        if (login) await requestPasswordReset(login, callerOf(call, query, lang), passwordResetDeps(), now());
      } catch (error) {
        // The userMigration hook failed: fail closed, and say so rather than claim a code went out.
        if (!(error instanceof HookFailedError)) throw error;
        const message = TEXT[lang].hookFailed;
        return pageResult(503, resetRequestPage({ lang, state: stateOf(call.body), loginHint: login, message }));
      }
      return pageResult(200, resetCodePage({ lang, state: stateOf(call.body), login }));
    }),
});

const resetConfirmForm = {
  type: "object",
  properties: {
    ...interactionFields,
    username: { type: "string", maxLength: 256 },
    code: { type: "string", maxLength: 16 },
    new_password: { type: "string", maxLength: 1024 },
  },
} as const;

/** The violations a policy refusal carries (lib/domain/passwords/violations.ts). */
function violationsOf(error: ApiError): PolicyViolation[] {
  const listed = (error.details.errors as Array<{ params?: unknown }> | undefined) ?? [
    { params: error.details.params },
  ];
  return listed.map((p) => p.params as PolicyViolation).filter((v) => v && typeof v.rule === "string");
}

const resetConfirm = route({
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
    answeringForm(call, call.body, async (query, lang) => {
      const t = TEXT[lang];
      const login = text(call.body.username);
      const state = stateOf(call.body);
      try {
        await finishPasswordReset(
          { login, code: text(call.body.code), password: call.body.new_password ?? "" },
          callerOf(call, query, lang),
          passwordResetDeps(),
          now(),
        );
      } catch (error) {
        if (error instanceof ResetCodeError)
          return pageResult(200, resetCodePage({ lang, state, login, message: t.resetCodeInvalid }));
        if (error instanceof ApiError && error.status === 400) {
          const violations = violationsOf(error);
          return pageResult(200, resetCodePage({ lang, state, login, message: t.policy, violations }));
        }
        throw error;
      }
      const page = await signInPageFor({
        lang,
        state,
        clientName: query.client_id,
        step: "password",
        loginHint: login,
        notice: t.passwordReset,
      });
      return pageResult(200, page);
    }),
});

export const hostedAccountRoutes = [
  registerStart,
  registerSubmit,
  registerConfirm,
  resetStart,
  resetRequest,
  resetConfirm,
];
