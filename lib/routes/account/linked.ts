import { config } from "../../config";
import { ApiError } from "../../domain/errors";
import { SID_PATTERN } from "../../domain/federation/external-account";
import { seeOther } from "../../http/browser";
import { type CommonCall, route } from "../../http/route";
import { type LinkedProblem, linkedBody, linkedTitle } from "../../pages/account/linked";
import { PROVIDER_PART_PATTERN } from "../../settings-schema";
import {
  afterChange,
  CHANGE_REFUSALS,
  consoleActor,
  consoleForm,
  SECTION_RESPONSES,
  sectionChange,
  sectionPage,
} from "./console";
import type { AccountConsoleUseCases } from "./use-cases";

/**
 * The linked accounts section (docs/account.md). Both changes need a recent sign-in: an
 * account at another service that signs in here is a way into this account. "Link" starts
 * the bind flow of interface §4.9 for the signed-in account; the provider sends the browser
 * to the bind callback (lib/routes/federation.ts), which links at once since the browser
 * carries this account's session, and back here.
 */

/** The bind flow's callback (federation.callback), as the providers know it. */
function bindCallbackUrl(): string {
  const { issuer, settings } = config();
  return settings.federation.callbackUrl ?? `${issuer}/api/v2/users/current/fa/callback`;
}

/** Where the bind flow brings the browser back: this section, saying so (the callback adds `error` when it did not link). */
const comeBack = () => `${config().issuer}/account/linked?done=linked`;

type Extra = { done?: string; problem?: LinkedProblem; bindError?: string };

function showLinked(uc: AccountConsoleUseCases, call: CommonCall, extra: Extra) {
  return sectionPage(uc, call, "linked", async (visit) => {
    const { links, unlinked } = await uc.linked.view(visit.browser.account.sub);
    const body = linkedBody({ lang: visit.lang, csrf: visit.csrf, links, unlinked, ...extra });
    return { title: linkedTitle(visit.lang), body, status: extra.problem ? 400 : 200 };
  });
}

/** The domain's refusals this section words for the user. */
const PROBLEMS: Record<string, LinkedProblem> = { unknown_link: "unknownLink", unknown_provider: "unknownProvider" };

const linkedQuery = {
  type: "object",
  properties: {
    done: { type: "string", maxLength: 32, description: "the change just made, announced on the page" },
    error: { type: "string", maxLength: 256, description: "why the bind flow did not link, as its callback reports" },
    error_description: { type: "string", maxLength: 2048 },
  },
} as const;

const changeResponses = {
  303: { description: "Changed: to the section, which says so; or to confirm it's you first" },
  ...CHANGE_REFUSALS,
} as const;

const linked = { section: "linked", sensitive: true } as const;

const view = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.linked",
    method: "GET",
    path: "/svc/account/linked",
    version: "page",
    auth: "none",
    summary: "The account console's linked accounts: accounts at external providers that sign in here",
    tags: ["account"],
    request: { query: linkedQuery },
    responses: SECTION_RESPONSES,
    handler: (call) => {
      const { done, error } = call.query;
      return showLinked(uc, call, { ...(done && { done }), ...(error && { bindError: error }) });
    },
  });

const unlink = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.link-remove",
    method: "POST",
    path: "/svc/account/linked/unlink",
    version: "page",
    auth: "none",
    summary: "Unlink an account at an external provider, and forget its stored tokens",
    tags: ["account"],
    request: {
      body: {
        contentType: "form",
        schema: consoleForm({
          fpType: { type: "string", pattern: PROVIDER_PART_PATTERN },
          fpName: { type: "string", pattern: PROVIDER_PART_PATTERN },
          sid: { type: "string", pattern: SID_PATTERN },
        }),
        required: true,
      },
    },
    responses: changeResponses,
    handler: (call) =>
      sectionChange(uc, call, call.body, linked, async (visit) => {
        const { fpType = "", fpName = "", sid = "" } = call.body;
        try {
          await uc.linked.unlink(visit.browser.account.sub, { fpType, fpName, sid }, consoleActor(call, visit));
          return afterChange("linked", "unlinked");
        } catch (error) {
          const problem = error instanceof ApiError ? PROBLEMS[error.error] : undefined;
          if (!problem) throw error;
          return showLinked(uc, call, { problem });
        }
      }),
  });

const link = (uc: AccountConsoleUseCases) =>
  route({
    id: "account.link-start",
    method: "POST",
    path: "/svc/account/linked/link",
    version: "page",
    auth: "none",
    summary: "Link an account at a configured provider: on to the provider (bind flow), back to the section",
    tags: ["account"],
    request: {
      body: {
        contentType: "form",
        schema: consoleForm({ fp: { type: "string", pattern: "^[A-Za-z0-9-]{1,64}:[A-Za-z0-9-]{1,64}$" } }),
        required: true,
      },
    },
    responses: { ...changeResponses, 303: { description: "To the provider; or to confirm it's you first" } },
    handler: (call) =>
      sectionChange(uc, call, call.body, linked, async (visit) => {
        const target = {
          callback: comeBack(),
          redirectUri: bindCallbackUrl(),
          stateTtlSeconds: config().settings.federation.stateTtlSeconds,
        };
        try {
          const sub = visit.browser.account.sub;
          return seeOther(
            await uc.linked.startLink(sub, call.body.fp ?? "", target, consoleActor(call, visit), visit.now),
          );
        } catch (error) {
          if (!(error instanceof ApiError && error.error === "unknown_provider")) throw error;
          return showLinked(uc, call, { problem: "unknownProvider" });
        }
      }),
  });

export const linkedRoutes = (uc: AccountConsoleUseCases) => [view(uc), unlink(uc), link(uc)];
