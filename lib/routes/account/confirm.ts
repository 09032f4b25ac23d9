import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { isPasskeyRefusal } from "../../domain/passkeys/passkeys";
import { route } from "../../http/route";
import { confirmBody } from "../../pages/account/confirm";
import { SECTIONS, type Section } from "../../pages/account/layout";
import { credentialOf } from "../hosted/answers";
import { afterChange, consoleForm, sectionChange, sectionPage, type Visit } from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * Confirm it's you (docs/account.md): the password or a passkey again before a sensitive
 * change when the sign-in is older than 10 minutes; the session's auth_time moves, and the
 * browser goes back to the section it came from.
 */

const nextProperty = { next: { enum: [...SECTIONS], description: "the section to go back to" } } as const;

/** The challenge is bound to the session and the browser's CSRF token. */
const bindingOf = (visit: Visit) => `${visit.browser.session.sid}/${visit.csrf}`;

async function confirmPage(uc: AccountConsoleUseCases, visit: Visit, next: Section, problem?: string) {
  const options = JSON.stringify(await uc.session.passkeyOptions(bindingOf(visit)));
  const body = confirmBody({
    lang: visit.lang,
    csrf: visit.csrf,
    next,
    passkeyOptions: options,
    ...(problem && { problem }),
  });
  return { title: visit.t.confirmTitle, body, ...(problem && { status: 400 }) };
}

const confirmResponses = {
  303: { description: "Confirmed: back to the section" },
  400: { description: "The confirmation page with why not, or an expired form", contentType: "text/html" },
  401: { description: "Not signed in", contentType: "text/html" },
} as const;

const show = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.confirm",
    method: "GET",
    path: "/svc/account/confirm",
    version: "page",
    auth: "none",
    summary: "Confirm it's you before a sensitive change (password or passkey)",
    tags: ["account"],
    request: { query: { type: "object", properties: nextProperty } },
    responses: {
      200: { description: "The confirmation page", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) =>
      sectionPage(uc, call, undefined, (visit) => confirmPage(uc, visit, call.query.next ?? "profile")),
  });

const byPassword = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.confirm-password",
    method: "POST",
    path: "/svc/account/confirm",
    version: "page",
    auth: "none",
    summary: "Confirm it's you with the account's password (counted like any password guess)",
    tags: ["account"],
    request: {
      body: {
        contentType: "form",
        schema: consoleForm({ ...nextProperty, password: { type: "string", maxLength: 1024 } }),
        required: true,
      },
    },
    responses: confirmResponses,
    handler: (call) => {
      const next = call.body.next ?? "profile";
      return sectionChange(uc, call, call.body, { section: next, sensitive: false }, async (visit) => {
        const addresses = [call.connectionIp ?? call.sourceIp ?? "unknown"];
        const confirmed = await uc.session.confirmWithPassword(
          visit.browser,
          call.body.password ?? "",
          addresses,
          visit.now,
        );
        if (confirmed) return afterChange(next, "confirmed");
        return sectionPage(uc, call, undefined, (again) => confirmPage(uc, again, next, again.t.confirmFailed));
      });
    },
  });

const byPasskey = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.confirm-passkey",
    method: "POST",
    path: "/svc/account/confirm/passkey",
    version: "page",
    auth: "none",
    summary: "Confirm it's you with one of the account's passkeys",
    tags: ["account"],
    request: {
      body: {
        contentType: "form",
        schema: consoleForm({ ...nextProperty, credential: { type: "string", maxLength: 16384 } }),
        required: true,
      },
    },
    responses: confirmResponses,
    handler: (call) => {
      const next = call.body.next ?? "profile";
      return sectionChange(uc, call, call.body, { section: next, sensitive: false }, async (visit) => {
        const answer = credentialOf<AuthenticationResponseJSON>(call.body.credential);
        let confirmed = false;
        try {
          confirmed =
            answer !== undefined &&
            (await uc.session.confirmWithPasskey(visit.browser, answer, bindingOf(visit), visit.now));
        } catch (error) {
          if (!isPasskeyRefusal(error)) throw error;
        }
        if (confirmed) return afterChange(next, "confirmed");
        const problem = answer ? visit.t.confirmFailed : visit.t.passkeyMissing;
        return sectionPage(uc, call, undefined, (again) => confirmPage(uc, again, next, problem));
      });
    },
  });

export const confirmRoutes = (uc: AccountConsoleUseCases) => [show(uc), byPassword(uc), byPasskey(uc)];
