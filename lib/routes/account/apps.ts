import { ApiError } from "../../domain/errors";
import { type CommonCall, route } from "../../http/route";
import { type AppsProblem, appsBody, appsTitle } from "../../pages/account/apps";
import { afterChange, consoleActor, consoleForm, sectionChange, sectionPage, sectionQuery } from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * The connected applications section (docs/account.md): removing an application's access
 * only protects the account, so it does not ask to confirm it's you first.
 */

function showApps(uc: AccountConsoleUseCases, call: CommonCall, extra: { done?: string; problem?: AppsProblem }) {
  return sectionPage(uc, call, "apps", async (visit) => {
    const apps = await uc.apps.view(visit.browser.account.sub);
    const body = appsBody({ lang: visit.lang, csrf: visit.csrf, apps, ...extra });
    return { title: appsTitle(visit.lang), body, status: extra.problem ? 400 : 200 };
  });
}

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.apps",
    method: "GET",
    path: "/svc/account/apps",
    version: "page",
    auth: "none",
    summary: "The account console's connected applications: what the user allowed each application",
    tags: ["account"],
    request: { query: sectionQuery },
    responses: {
      200: { description: "The section", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) => showApps(uc, call, call.query.done ? { done: call.query.done } : {}),
  });

const remove = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.app-remove",
    method: "POST",
    path: "/svc/account/apps/remove",
    version: "page",
    auth: "none",
    summary: "Remove an application's access: the consent is withdrawn and its sessions end at once (consent_withdraw)",
    tags: ["account"],
    request: {
      body: { contentType: "form", schema: consoleForm({ id: { type: "string", maxLength: 200 } }), required: true },
    },
    responses: {
      303: { description: "Removed: to the section, which says so" },
      400: { description: "The section with why not, or an expired form", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) =>
      sectionChange(uc, call, call.body, { section: "apps", sensitive: false }, async (visit) => {
        try {
          await uc.apps.remove(visit.browser.account.sub, call.body.id ?? "", consoleActor(call, visit));
          return afterChange("apps", "removed");
        } catch (error) {
          if (!(error instanceof ApiError && error.error === "unknown_consent")) throw error;
          return showApps(uc, call, { problem: "unknownApp" });
        }
      }),
  });

export const appRoutes = (uc: AccountConsoleUseCases) => [view(uc), remove(uc)];
