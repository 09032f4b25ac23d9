import { HOSTED_CLIENT } from "../../domain/oidc/browser-session";
import { COOKIES, pageResult, setCookie } from "../../http/browser";
import { route } from "../../http/route";
import { activityBody, activityTitle, securedPage } from "../../pages/account/activity";
import { consoleActor, consoleForm, sectionChange, sectionPage } from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * The recent activity section (docs/account/activity.md): the account's security events in
 * plain words, a page at a time, and "This wasn't me", which is deliberately not a
 * sensitive change: someone whose account is being taken over must not be held up.
 */

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.activity",
    method: "GET",
    path: "/svc/account/activity",
    version: "page",
    auth: "none",
    summary: "The account console's recent activity: the last 30 days of security events in words, newest first",
    tags: ["account"],
    request: {
      query: {
        type: "object",
        properties: {
          before: {
            type: "string",
            pattern: "^[0-9]{1,15}$",
            description: 'milliseconds since the epoch: events before it (the page\'s "Show older" link)',
          },
        },
      },
    },
    responses: {
      200: { description: "The section", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) =>
      sectionPage(uc, call, "activity", async (visit) => {
        const before = call.query.before === undefined ? undefined : Number(call.query.before);
        const page = await uc.activity.page(visit.browser.account.sub, before, Date.now());
        const body = activityBody({
          lang: visit.lang,
          csrf: visit.csrf,
          entries: page.entries,
          ...(page.older !== undefined && { older: page.older }),
          paged: before !== undefined,
          ownClient: HOSTED_CLIENT,
        });
        return { title: activityTitle(visit.lang), body };
      }),
  });

const notMe = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.not-me",
    method: "POST",
    path: "/svc/account/activity/not-me",
    version: "page",
    auth: "none",
    summary: "This wasn't me: end every session of the account, this one too, and require a new password at sign-in",
    description:
      "Not a sensitive change: no recent sign-in is asked. The answer is a page saying what happened and what to do next; the browser is signed out.",
    tags: ["account"],
    request: { body: { contentType: "form", schema: consoleForm({}), required: true } },
    responses: {
      200: { description: "Signed out everywhere: what to do next", contentType: "text/html" },
      400: { description: "An expired form", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) =>
      sectionChange(uc, call, call.body, { section: "activity", sensitive: false }, async (visit) => {
        const ended = await uc.activity.notMe(visit.browser.account.sub, consoleActor(call, visit));
        return pageResult(200, securedPage(visit.lang, ended.sessions), [setCookie(COOKIES.session, "", 0)]);
      }),
  });

export const activityRoutes = (uc: AccountConsoleUseCases) => [view(uc), notMe(uc)];
