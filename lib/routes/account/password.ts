import { ApiError } from "../../domain/errors";
import { type CommonCall, route } from "../../http/route";
import { type PasswordPageView, passwordBody, passwordTitle } from "../../pages/account/password";
import { violationsOf } from "../hosted/answers";
import { afterChange, consoleActor, consoleForm, sectionChange, sectionPage, sectionQuery } from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * The password section (docs/account/password.md): a new password under the policy, with a
 * recent sign-in standing for the current one; other devices signed out when asked.
 */

type Extra = Pick<PasswordPageView, "done" | "problem" | "violations">;

function showPassword(uc: AccountConsoleUseCases, call: CommonCall, extra: Extra, status = 200) {
  return sectionPage(uc, call, "password", async (visit) => {
    const shown = await uc.password.view(visit.browser.account.sub);
    const body = passwordBody({ lang: visit.lang, csrf: visit.csrf, ...shown, ...extra });
    return { title: passwordTitle(visit.lang), body, status };
  });
}

/** The policy's refusals (one rule, or several wrapped in wrong_values); anything else is thrown on. */
function isPolicyRefusal(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    (error.error === "password_policy_violated" || error.error === "wrong_values") &&
    violationsOf(error).length > 0
  );
}

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.password",
    method: "GET",
    path: "/svc/account/password",
    version: "page",
    auth: "none",
    summary: "The account console's password: when it was last changed, and the form for a new one",
    tags: ["account"],
    request: { query: sectionQuery },
    responses: {
      200: { description: "The section", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) => showPassword(uc, call, call.query.done ? { done: call.query.done } : {}),
  });

const change = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.password-change",
    method: "POST",
    path: "/svc/account/password",
    version: "page",
    auth: "none",
    summary: "Change the password under the policy (interface §4.1); optionally sign out every other device",
    tags: ["account"],
    request: {
      body: {
        contentType: "form",
        schema: consoleForm({
          new_password: { type: "string", maxLength: 1024 },
          repeat_password: { type: "string", maxLength: 1024 },
          sign_out_others: { enum: ["true"] },
        }),
        required: true,
      },
    },
    responses: {
      303: { description: "Changed: to the section, which says so; or to confirm it's you first" },
      400: { description: "The section with the rules broken, or an expired form", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) =>
      sectionChange(uc, call, call.body, { section: "password", sensitive: true }, async (visit) => {
        const password = call.body.new_password ?? "";
        if (password !== (call.body.repeat_password ?? "")) return showPassword(uc, call, { problem: "mismatch" }, 400);
        const signOutOthers = call.body.sign_out_others === "true";
        try {
          await uc.password.change(visit.browser, { password, signOutOthers }, visit.lang, consoleActor(call, visit));
        } catch (error) {
          if (!isPolicyRefusal(error)) throw error;
          return showPassword(uc, call, { problem: "policy", violations: violationsOf(error) }, 400);
        }
        return afterChange("password", signOutOthers ? "changed-signed-out" : "changed");
      }),
  });

export const passwordRoutes = (uc: AccountConsoleUseCases) => [view(uc), change(uc)];
