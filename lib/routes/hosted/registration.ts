import { ApiError } from "../../domain/errors";
import { INVITATION_MARK } from "../../domain/organizations/invitations";
import type { PolicyViolation } from "../../domain/passwords/policy";
import type { Instruction } from "../../domain/registration/instructions";
import type { RegistrationResponse } from "../../domain/registration/register";
import { pageResult } from "../../http/browser";
import { type CommonCall, type HttpResult, route } from "../../http/route";
import type { FormState } from "../../pages/parts";
import {
  type RegistrationFields,
  registerCodesPage,
  registerPage,
  type WaitingContact,
} from "../../pages/registration";
import { type Language, TEXT } from "../../pages/text";
import {
  answeringForm,
  answeringLink,
  callerOf,
  expiredForm,
  hostedForm,
  linkQuery,
  linkResponses,
  type OpenedForm,
  originOf,
  text,
  violationsOf,
} from "./answers";
import { answerDecision } from "./decisions";
import type { HostedUseCases } from "./use-cases";

/**
 * Registration on the hosted pages (docs/sign-in.md): reached from the sign-in page,
 * carrying its signed authorization request, and ending back in the sign-in.
 */

const registerStart = (uc: HostedUseCases) =>
  route({
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
        // From an invitation's page: the invited address, which the link confirms, is filled in.
        const invitation = found.query[INVITATION_MARK];
        const invited = invitation === undefined ? undefined : await uc.invitations.preview(invitation);
        const fields = invited && { email: invited.email };
        return pageResult(200, registerPage({ lang, state: found.state, fields }));
      }),
  });

const registrationForm = hostedForm({
  given_name: { type: "string", maxLength: 256 },
  family_name: { type: "string", maxLength: 256 },
  middle_name: { type: "string", maxLength: 256 },
  email: { type: "string", maxLength: 254 },
  phone: { type: "string", maxLength: 32 },
  password: { type: "string", maxLength: 1024 },
});

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

/** A refusal the form words for the user; anything else is thrown on. */
function refusalMessages(error: unknown, lang: Language): { messages: string[]; violations?: PolicyViolation[] } {
  if (error instanceof ApiError && error.error === "message_not_sent") return { messages: [TEXT[lang].notSent] };
  if (error instanceof ApiError && error.error === "hook_failed") return { messages: [TEXT[lang].hookFailed] };
  if (!(error instanceof ApiError) || error.status >= 500) throw error;
  // The registration's own check, worded for the page: the password is looked up once.
  return { messages: registrationMessages(error, lang), violations: violationsOf(error) };
}

/** The contacts a registration still waits for, from its interface §3.3 instructions. */
function waitingOf(instructions: Instruction[]): WaitingContact[] {
  return instructions.flatMap((i): WaitingContact[] => {
    if (i.email !== undefined) return [{ channel: "email", to: i.email }];
    if (i.mobile !== undefined) return [{ channel: "sms", to: i.mobile }];
    return [];
  });
}

/** The codes page, or, once nothing waits any more, the new account's sign-in and the way on. */
async function afterRegistrationStep(
  uc: HostedUseCases,
  call: CommonCall,
  found: OpenedForm & { lang: Language },
  response: RegistrationResponse,
  page: { state: FormState; message?: string; notice?: string },
): Promise<HttpResult> {
  if (response.subject && response.instructions.length === 0) {
    const request = await uc.authorization.loadRequest(found.query);
    const decision = await uc.signIn.registered(request, response.subject, originOf(call, found.lang));
    return answerDecision(call, uc, found, decision);
  }
  const waiting = waitingOf(response.instructions);
  return pageResult(200, registerCodesPage({ lang: found.lang, context: response.context, waiting, ...page }));
}

function fieldsOf(form: Partial<Record<keyof RegistrationFields, string>>): RegistrationFields {
  return {
    given_name: text(form.given_name),
    family_name: text(form.family_name),
    middle_name: text(form.middle_name),
    email: text(form.email),
    phone: text(form.phone),
  };
}

function attributesOf(fields: RegistrationFields) {
  return {
    ...(fields.given_name && { given_name: fields.given_name }),
    ...(fields.family_name && { family_name: fields.family_name }),
    ...(fields.middle_name && { middle_name: fields.middle_name }),
    ...(fields.email && { email: { value: fields.email, verified: false } }),
    ...(fields.phone && { phone_number: { value: fields.phone, verified: false } }),
  };
}

const registerSubmit = (uc: HostedUseCases) =>
  route({
    id: "hosted.register-submit",
    method: "POST",
    path: "/svc/oauth/register",
    version: "page",
    auth: "none",
    summary: "Registration: names, e-mail and/or phone, and a password under the policy",
    description:
      "Runs the registration of interface §4.4 for the client of the sign-in. A code goes to each contact; the codes page follows. Refusals (policy, invalid values) show the form again with what to change. An e-mail or phone another account holds is answered like a free one: the codes page follows, its owner is told by message, and no code is sent to it (docs/sign-in.md).",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: registrationForm, required: true } },
    responses: {
      200: { description: "The codes page, or the form with what to change", contentType: "text/html" },
      303: { description: "Registered without codes to wait for: on to the client" },
      400: { description: "Expired or forged form", contentType: "text/html" },
    },
    handler: (call) =>
      answeringForm(call, call.body, async (opened, lang) => {
        const fields = fieldsOf(call.body);
        const state = opened.state;
        const again = (said: { messages: string[]; violations?: PolicyViolation[] }) =>
          pageResult(200, registerPage({ lang, state, fields, ...said }));
        if (!fields.email && !fields.phone) return again({ messages: [TEXT[lang].contactRequired] });
        const user = { attrs: attributesOf(fields), credentials: { password: call.body.password ?? "" } };
        try {
          const caller = callerOf(call, opened.query, lang);
          const response = await uc.selfService.register({ user }, caller, opened.query[INVITATION_MARK]);
          return await afterRegistrationStep(uc, call, { ...opened, lang }, response, { state });
        } catch (error) {
          return again(refusalMessages(error, lang));
        }
      }),
  });

const codesForm = hostedForm({
  context: { type: "string", maxLength: 64 },
  email_code: { type: "string", maxLength: 16 },
  sms_code: { type: "string", maxLength: 16 },
  resend: { enum: ["email", "sms"] },
});

type CodesForm = { email_code?: string; sms_code?: string; resend?: "email" | "sms" };

/** The codes sent in (or a resend), each checked as in interface §4.5; the last answer, and a message for a wrong one. */
async function confirmCodes(uc: HostedUseCases, context: string, form: CodesForm, caller: ReturnType<typeof callerOf>) {
  const t = TEXT[caller.language];
  if (form.resend) {
    const action = form.resend === "email" ? "email_code_resend" : "sms_code_resend";
    return { response: await uc.selfService.confirm(context, { [action]: "1" }, caller), notice: t.codeResent };
  }
  const submitted = (
    [
      ["email_code", "email", form.email_code],
      ["sms_code", "mobile", form.sms_code],
    ] as const
  ).filter((entry): entry is typeof entry & { 2: string } => Boolean(entry[2]));
  let response: RegistrationResponse | undefined;
  for (const [action, , value] of submitted) {
    response = await uc.selfService.confirm(context, { [action]: value.trim() }, caller);
  }
  if (!response) return undefined;
  // A contact whose code was just sent in and that still waits: the code was wrong or stale.
  const stillWaiting = response.instructions.find((i) => submitted.some(([, key]) => i[key] !== undefined));
  return { response, message: stillWaiting ? t.codeWrong(stillWaiting.attemts ?? 0) : undefined };
}

const registerConfirm = (uc: HostedUseCases) =>
  route({
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
      answeringForm(call, call.body, async (opened, lang) => {
        const context = call.body.context;
        if (!context) return expiredForm(lang);
        const found = { ...opened, lang };
        try {
          const confirmed = await confirmCodes(uc, context, call.body, callerOf(call, opened.query, lang));
          if (!confirmed) return expiredForm(lang);
          const { response, ...said } = confirmed;
          return await afterRegistrationStep(uc, call, found, response, { state: opened.state, ...said });
        } catch (error) {
          // Taken meanwhile by another account: told only now, to whoever proved every contact with its code.
          if (error instanceof ApiError && error.error === "already_used")
            return pageResult(
              200,
              registerPage({ lang, state: opened.state, messages: registrationMessages(error, lang) }),
            );
          if (!(error instanceof ApiError) || !["unknown_context", "too_many_codes"].includes(error.error)) throw error;
          const pending =
            error.error === "too_many_codes"
              ? await uc.selfService.pending(context, Math.floor(Date.now() / 1000))
              : undefined;
          if (!pending) return expiredForm(lang);
          const page = { state: opened.state, message: TEXT[lang].tooManyCodes };
          return afterRegistrationStep(uc, call, found, pending, page);
        }
      }),
  });

export const registrationRoutes = (uc: HostedUseCases) => [registerStart(uc), registerSubmit(uc), registerConfirm(uc)];
