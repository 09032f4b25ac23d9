import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import { ApiError } from "../../domain/errors";
import { isPasskeyRefusal } from "../../domain/passkeys/passkeys";
import { type CommonCall, type HttpResult, route } from "../../http/route";
import { type MethodsProblem, type MethodsView, methodsBody, methodsTitle } from "../../pages/account/sign-in-methods";
import { credentialOf } from "../hosted/answers";
import {
  afterChange,
  CHANGE_REFUSALS,
  consoleActor,
  consoleForm,
  SECTION_RESPONSES,
  sectionChange,
  sectionPage,
  sectionQuery,
  type Visit,
} from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/** The sign-in methods section (docs/account.md): every change here needs a recent sign-in. */

/** Passkey challenges are bound to the session and the browser's CSRF token. */
const bindingOf = (visit: Visit) => `${visit.browser.session.sid}/${visit.csrf}`;

type Extra = Pick<MethodsView, "done" | "problem" | "newCodes" | "pendingApp">;

/** The section as it stands, with what just happened. */
function showMethods(uc: AccountConsoleUseCases, call: CommonCall, extra: (visit: Visit) => Extra, status = 200) {
  return sectionPage(uc, call, "methods", async (visit) => {
    const shown = await uc.methods.view(visit.browser.account, bindingOf(visit));
    const body = methodsBody({
      lang: visit.lang,
      csrf: visit.csrf,
      passkeys: shown.passkeys,
      creationOptions: JSON.stringify(shown.options),
      authenticators: shown.authenticators,
      codesTo: shown.codesTo,
      recoveryLeft: shown.recoveryLeft,
      secondFactorRequired: shown.secondFactorRequired,
      ...extra(visit),
    });
    return { title: methodsTitle(visit.lang), body, status };
  });
}

/** The domain's refusals that this section words for the user; anything else is thrown on. */
async function refusedAs(
  uc: AccountConsoleUseCases,
  call: CommonCall,
  change: () => Promise<HttpResult>,
): Promise<HttpResult> {
  try {
    return await change();
  } catch (error) {
    const problem = problemOf(error);
    if (!problem) throw error;
    return showMethods(uc, call, () => ({ problem }), 400);
  }
}

function problemOf(error: unknown): MethodsProblem | undefined {
  if (isPasskeyRefusal(error)) return error.error === "unknown_passkey" ? "passkeyUnknown" : "passkeyRefused";
  if (!(error instanceof ApiError)) return undefined;
  const words: Record<string, MethodsProblem> = {
    wrong_otp_code: "wrongCode",
    unknown_totp: "unknownApp",
    has_not_sf_methods: "noMethod",
  };
  return words[error.error];
}

const changeResponses = {
  303: { description: "Changed: to the section, which says so; or to confirm it's you first" },
  ...CHANGE_REFUSALS,
} as const;

const methods = { section: "methods", sensitive: true } as const;

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.methods",
    method: "GET",
    path: "/svc/account/sign-in-methods",
    version: "page",
    auth: "none",
    summary: "The account console's sign-in methods: passkeys, authenticator apps, recovery codes, second step",
    tags: ["account"],
    request: { query: sectionQuery },
    responses: SECTION_RESPONSES,
    handler: (call) => showMethods(uc, call, () => (call.query.done ? { done: call.query.done } : {})),
  });

const form = <const P extends Record<string, unknown>>(fields: P) =>
  ({ body: { contentType: "form", schema: consoleForm(fields), required: true } }) as const;

const idField = { id: { type: "string", maxLength: 1000 } } as const;

const addPasskey = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.passkey-add",
    method: "POST",
    path: "/svc/account/sign-in-methods/passkeys",
    version: "page",
    auth: "none",
    summary: "Add a passkey (WebAuthn registration)",
    tags: ["account"],
    request: form({ credential: { type: "string", maxLength: 131072 }, name: { type: "string", maxLength: 64 } }),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, (visit) =>
        refusedAs(uc, call, async () => {
          const response = credentialOf<RegistrationResponseJSON>(call.body.credential);
          if (!response) return showMethods(uc, call, () => ({ problem: "passkeyRefused" }), 400);
          const name = call.body.name?.trim();
          const input = { response, ...(name && { name }) };
          const actor = consoleActor(call, visit);
          await uc.methods.addPasskey(visit.browser.account, input, bindingOf(visit), actor, visit.lang);
          return afterChange("methods", "passkey-added");
        }),
      ),
  });

const renamePasskey = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.passkey-rename",
    method: "POST",
    path: "/svc/account/sign-in-methods/passkeys/rename",
    version: "page",
    auth: "none",
    summary: "Rename one of the account's passkeys",
    tags: ["account"],
    request: form({ ...idField, name: { type: "string", minLength: 1, maxLength: 64 } }),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, (visit) =>
        refusedAs(uc, call, async () => {
          const name = call.body.name?.trim() ?? "";
          if (!name) return showMethods(uc, call, () => ({ problem: "passkeyUnknown" }), 400);
          await uc.methods.renamePasskey(
            visit.browser.account.sub,
            call.body.id ?? "",
            name,
            consoleActor(call, visit),
          );
          return afterChange("methods", "passkey-renamed");
        }),
      ),
  });

const removePasskey = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.passkey-delete",
    method: "POST",
    path: "/svc/account/sign-in-methods/passkeys/delete",
    version: "page",
    auth: "none",
    summary: "Remove one of the account's passkeys",
    tags: ["account"],
    request: form(idField),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, (visit) =>
        refusedAs(uc, call, async () => {
          await uc.methods.removePasskey(visit.browser.account.sub, call.body.id ?? "", consoleActor(call, visit));
          return afterChange("methods", "passkey-removed");
        }),
      ),
  });

const startApp = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.authenticator-start",
    method: "POST",
    path: "/svc/account/sign-in-methods/authenticator",
    version: "page",
    auth: "none",
    summary: "Set up an authenticator app: a new key and its QR code, waiting 10 minutes for the app's first code",
    tags: ["account"],
    request: form({}),
    responses: {
      200: { description: "The section with the key and its QR code", contentType: "text/html" },
      ...changeResponses,
    },
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, async (visit) => {
        const pendingApp = await uc.methods.startAuthenticator(visit.browser.account, consoleActor(call, visit));
        return showMethods(uc, call, () => ({ pendingApp }));
      }),
  });

const attachApp = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.authenticator-confirm",
    method: "POST",
    path: "/svc/account/sign-in-methods/authenticator/confirm",
    version: "page",
    auth: "none",
    summary: "Turn on the authenticator app set up: its first code proves it holds the key",
    tags: ["account"],
    request: form({
      secret: { type: "string", maxLength: 128 },
      code: { type: "string", maxLength: 16 },
      name: { type: "string", maxLength: 64 },
    }),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, (visit) =>
        refusedAs(uc, call, async () => {
          const name = call.body.name?.trim();
          const input = {
            base32Secret: call.body.secret ?? "",
            otpCode: (call.body.code ?? "").trim(),
            ...(name && { name }),
          };
          await uc.methods.attachAuthenticator(visit.browser.account, input, consoleActor(call, visit), visit.lang);
          return afterChange("methods", "app-added");
        }),
      ),
  });

const removeApp = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.authenticator-delete",
    method: "POST",
    path: "/svc/account/sign-in-methods/authenticator/delete",
    version: "page",
    auth: "none",
    summary: "Remove an authenticator app",
    tags: ["account"],
    request: form(idField),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, (visit) =>
        refusedAs(uc, call, async () => {
          await uc.methods.removeAuthenticator(
            visit.browser.account.sub,
            call.body.id ?? "",
            consoleActor(call, visit),
          );
          return afterChange("methods", "app-removed");
        }),
      ),
  });

const recoveryCodes = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.recovery-codes",
    method: "POST",
    path: "/svc/account/sign-in-methods/recovery-codes",
    version: "page",
    auth: "none",
    summary: "A new set of 10 recovery codes, shown this once; the old set stops working",
    tags: ["account"],
    request: form({}),
    responses: {
      200: { description: "The section with the new codes, this once", contentType: "text/html" },
      ...changeResponses,
    },
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, async (visit) => {
        const { cId, ip, ua } = consoleActor(call, visit);
        const made = await uc.methods.newRecoveryCodes(visit.browser.account.sub, { cId, ip, ua }, visit.now);
        return showMethods(uc, call, () => ({ newCodes: made.codes }));
      }),
  });

const secondFactor = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.second-factor",
    method: "POST",
    path: "/svc/account/sign-in-methods/second-factor",
    version: "page",
    auth: "none",
    summary: "Ask for a second step at every sign-in, or only when an application requires it (requiredFactor)",
    tags: ["account"],
    request: form({ required: { enum: ["true", "false"] } }),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, methods, (visit) =>
        refusedAs(uc, call, async () => {
          const required = call.body.required === "true";
          await uc.methods.requireSecondFactor(visit.browser.account, required, consoleActor(call, visit));
          return afterChange("methods", required ? "second-factor-on" : "second-factor-off");
        }),
      ),
  });

export const signInMethodRoutes = (uc: AccountConsoleUseCases) => [
  view(uc),
  addPasskey(uc),
  renamePasskey(uc),
  removePasskey(uc),
  startApp(uc),
  attachApp(uc),
  removeApp(uc),
  recoveryCodes(uc),
  secondFactor(uc),
];
