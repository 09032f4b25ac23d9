import type { CodeOutcome, ContactField } from "../../domain/account-console/profile";
import { ApiError } from "../../domain/errors";
import { type CommonCall, type HttpResult, route } from "../../http/route";
import { type ProfilePageView, type ProfileProblem, profileBody, profileTitle } from "../../pages/account/profile";
import { PRINTABLE_PATTERN } from "../schemas";
import {
  afterChange,
  CHANGE_REFUSALS,
  consoleActor,
  consoleForm,
  SECTION_RESPONSES,
  sectionChange,
  sectionPage,
  sectionQuery,
} from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * The profile section, the console's landing page (docs/account/profile.md): names change
 * at once; a new e-mail or phone needs a recent sign-in and then the code sent to it.
 */

type Extra = Pick<ProfilePageView, "done" | "problem" | "typed">;

/** The section as it stands, with what just happened. */
function showProfile(uc: AccountConsoleUseCases, call: CommonCall, extra: Extra, status = 200) {
  return sectionPage(uc, call, "profile", async (visit) => {
    const shown = uc.profile.view(visit.browser.account, visit.now);
    const body = profileBody({ lang: visit.lang, csrf: visit.csrf, ...shown, ...extra });
    return { title: profileTitle(visit.lang), body, status };
  });
}

/** The domain's refusals of a contact change (interface §7.2 codes), in the section's words. */
function problemOf(error: unknown, field: ContactField, step: "start" | "confirm"): ProfileProblem | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const email = field === "email";
  // Before the code, contact_use_violation is a malformed value; after it, the value is another account's.
  const violation = step === "start" ? (email ? "badEmail" : "badPhone") : email ? "emailTaken" : "phoneTaken";
  const words: Record<string, ProfileProblem["key"]> = {
    contact_use_violation: violation,
    too_many_codes: "tooManyCodes",
    message_not_sent: "notSent",
    unknown_state: "noChange",
    wrong_value: "changedMeanwhile",
  };
  const key = words[error.error];
  return key === undefined || key === "wrongCode" ? undefined : { key };
}

/** A code's outcome other than the change, in the section's words. */
function outcomeProblem(outcome: Exclude<CodeOutcome, { status: "changed" }>): ProfileProblem {
  if (outcome.status === "wrong_code") return { key: "wrongCode", attemptsLeft: outcome.attemptsLeft };
  return { key: outcome.status === "code_expired" ? "codeExpired" : "noAttemptsLeft" };
}

async function refusedAs(
  uc: AccountConsoleUseCases,
  call: CommonCall,
  problem: (error: unknown) => ProfileProblem | undefined,
  change: () => Promise<HttpResult>,
  typed?: ProfilePageView["typed"],
): Promise<HttpResult> {
  try {
    return await change();
  } catch (error) {
    const found = problem(error);
    if (!found) throw error;
    return showProfile(uc, call, { problem: found, ...(typed && { typed }) }, 400);
  }
}

const changeResponses = {
  303: { description: "Done: to the section, which says so; or to confirm it's you first" },
  ...CHANGE_REFUSALS,
} as const;

const form = <const P extends Record<string, unknown>>(fields: P) =>
  ({ body: { contentType: "form", schema: consoleForm(fields), required: true } }) as const;

const nameField = { type: "string", maxLength: 256, pattern: PRINTABLE_PATTERN } as const;

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.profile",
    method: "GET",
    path: "/svc/account",
    version: "page",
    auth: "none",
    summary: "The account console's profile: names, e-mail and phone with a change waiting for its code",
    tags: ["account"],
    request: { query: sectionQuery },
    responses: SECTION_RESPONSES,
    handler: (call) => showProfile(uc, call, call.query.done ? { done: call.query.done } : {}),
  });

const names = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.names",
    method: "POST",
    path: "/svc/account/names",
    version: "page",
    auth: "none",
    summary: "Change the given, middle and family name (an emptied field removes that name)",
    tags: ["account"],
    request: form({ given_name: nameField, middle_name: nameField, family_name: nameField }),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, { section: "profile", sensitive: false }, (visit) =>
        refusedAs(
          uc,
          call,
          (error) =>
            error instanceof ApiError && error.error === "wrong_value" ? { key: "changedMeanwhile" } : undefined,
          async () => {
            const { given_name, middle_name, family_name } = call.body;
            const typed = { given_name, middle_name, family_name };
            const actor = consoleActor(call, visit);
            const changed = await uc.profile.changeNames(visit.browser.account, typed, visit.lang, actor);
            return afterChange("profile", changed ? "names" : "names-unchanged");
          },
        ),
      ),
  });

/** A new e-mail or phone: a code goes to it, and the change waits on the account. */
function startChange(uc: AccountConsoleUseCases, field: ContactField) {
  const email = field === "email";
  const segment = email ? "email" : "phone";
  return route({
    id: `account.${segment}-change`,
    method: "POST",
    path: `/svc/account/${segment}`,
    version: "page",
    auth: "none",
    summary: `Change the ${email ? "e-mail address" : "phone number"}: a code goes to the new one (interface §4.6)`,
    tags: ["account"],
    request: form({ email: { type: "string", maxLength: 254 }, phone: { type: "string", maxLength: 32 } }),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, { section: "profile", sensitive: true }, (visit) => {
        const value = ((email ? call.body.email : call.body.phone) ?? "").trim();
        return refusedAs(
          uc,
          call,
          (error) => problemOf(error, field, "start"),
          async () => {
            await uc.profile.startContactChange(
              visit.browser.account,
              field,
              value,
              visit.lang,
              consoleActor(call, visit),
            );
            return afterChange("profile", `${field}-code`);
          },
          { [field]: value },
        );
      }),
  });
}

/** The code sent to the new e-mail or phone; the right one makes the change. */
function confirmChange(uc: AccountConsoleUseCases, field: ContactField) {
  const email = field === "email";
  const segment = email ? "email" : "phone";
  return route({
    id: `account.${segment}-confirm`,
    method: "POST",
    path: `/svc/account/${segment}/confirm`,
    version: "page",
    auth: "none",
    summary: `Confirm the new ${email ? "e-mail address" : "phone number"} with the code sent to it (interface §3.2)`,
    tags: ["account"],
    request: form({ state: { type: "string", maxLength: 200 }, code: { type: "string", maxLength: 16 } }),
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, { section: "profile", sensitive: false }, (visit) =>
        refusedAs(
          uc,
          call,
          (error) => problemOf(error, field, "confirm"),
          async () => {
            const code = (call.body.code ?? "").trim();
            const actor = consoleActor(call, visit);
            const state = call.body.state ?? "";
            const outcome = await uc.profile.confirmContactChange(
              visit.browser.account,
              field,
              state,
              code,
              actor,
              visit.lang,
            );
            if (outcome.status === "changed") return afterChange("profile", `${field}-changed`);
            return showProfile(uc, call, { problem: outcomeProblem(outcome) }, 400);
          },
        ),
      ),
  });
}

export const profileRoutes = (uc: AccountConsoleUseCases) => [
  view(uc),
  names(uc),
  startChange(uc, "email"),
  confirmChange(uc, "email"),
  startChange(uc, "phone_number"),
  confirmChange(uc, "phone_number"),
];
