import { COOKIES, pageResult, readCookie, setCookie } from "../../http/browser";
import { type CommonCall, route } from "../../http/route";
import { CONSOLE_TEXT } from "../../pages/account/layout";
import { deletedPage, yourDataBody, yourDataTitle } from "../../pages/account/your-data";
import { errorPage } from "../../pages/error";
import { consoleActor, consoleForm, now, sectionChange, sectionPage, sectionQuery } from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * Your data (docs/account/data.md): the download of everything held about the account, and
 * its deletion, a sensitive change (a sign-in or re-authentication within 10 minutes).
 */

function showData(uc: AccountConsoleUseCases, call: CommonCall, extra: { done?: string; mustConfirm?: boolean }) {
  return sectionPage(uc, call, "data", async (visit) => {
    const body = yourDataBody({ lang: visit.lang, csrf: visit.csrf, graceDays: uc.data.graceDays(), ...extra });
    return { title: yourDataTitle(visit.lang), body, ...(extra.mustConfirm && { status: 400 }) };
  });
}

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.data",
    method: "GET",
    path: "/svc/account/data",
    version: "page",
    auth: "none",
    summary: "The account console's data section: download everything held about the account, or delete it",
    tags: ["account"],
    request: { query: sectionQuery },
    responses: {
      200: { description: "The section", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) => showData(uc, call, call.query.done ? { done: call.query.done } : {}),
  });

const download = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.data-export",
    method: "GET",
    path: "/svc/account/data/export",
    version: "page",
    auth: "none",
    summary: "Download everything held about the signed-in account as one JSON file (no secrets)",
    description:
      "Profile, contacts, properties, devices, sessions, consents, linked accounts, passkeys, authenticator apps (names), recovery codes (how many), groups, rights and security events; never a password hash, TOTP secret, code digest, token digest or stored external token.",
    tags: ["account"],
    responses: {
      200: {
        description: "The account as JSON, as an attachment",
        contentType: "application/json",
        headers: { "content-disposition": 'attachment; filename="account-<date>.json"' },
      },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: async (call) => {
      const browser = await uc.session.current(readCookie(call.cookies, COOKIES.session), now());
      if (!browser) return pageResult(401, errorPage(call.language, CONSOLE_TEXT[call.language].signedOut));
      const at = Date.now();
      const document = await uc.data.export(browser.account.sub, at);
      return {
        statusCode: 200,
        headers: {
          "content-type": "application/json; charset=utf-8",
          "content-disposition": `attachment; filename="account-${new Date(at).toISOString().slice(0, 10)}.json"`,
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
          "referrer-policy": "no-referrer",
        },
        body: JSON.stringify(document, null, 2),
      };
    },
  });

const remove = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.data-delete",
    method: "POST",
    path: "/svc/account/data/delete",
    version: "page",
    auth: "none",
    summary: "Delete the account: at once, or locked now and deleted after accountDeletion.graceDays by the daily job",
    tags: ["account"],
    request: {
      body: {
        contentType: "form",
        schema: consoleForm({ confirm: { enum: ["yes"], description: "the box ticked: I understand" } }),
        required: true,
      },
    },
    responses: {
      200: { description: "Deleted, or locked until its deletion: signed out", contentType: "text/html" },
      303: { description: "To confirm it's you first" },
      400: { description: "The section asking to tick the box, or an expired form", contentType: "text/html" },
      401: { description: "Not signed in", contentType: "text/html" },
    },
    handler: (call) =>
      sectionChange(uc, call, call.body, { section: "data", sensitive: true }, async (visit) => {
        if (call.body.confirm !== "yes") return showData(uc, call, { mustConfirm: true });
        const outcome = await uc.data.deleteAccount(visit.browser.account.sub, consoleActor(call, visit), visit.now);
        const page = deletedPage(visit.lang, outcome.deleted ? undefined : outcome.at);
        return pageResult(200, page, [setCookie(COOKIES.session, "", 0)]);
      }),
  });

export const yourDataRoutes = (uc: AccountConsoleUseCases) => [view(uc), download(uc), remove(uc)];
