import { CONSOLE_MARK } from "../../domain/account-console/console-client";
import { seeOther } from "../../http/browser";
import { route } from "../../http/route";
import { authorizationAnswer } from "./authorize";
import type { HostedUseCases } from "./use-cases";

/** The account console's way in (docs/account.md): the hosted sign-in, ending on the console. */

/** The account page moved into the account console; its old address leads there. */
const movedAccount = route({
  id: "hosted.account",
  method: "GET",
  path: "/svc/oauth/account",
  version: "page",
  auth: "none",
  summary: "Moved: the account console's sign-in methods",
  tags: ["sign-in"],
  responses: { 303: { description: "To /svc/account/sign-in-methods" } },
  handler: async () => seeOther("/svc/account/sign-in-methods"),
});

const consoleSignIn = (uc: HostedUseCases) =>
  route({
    id: "hosted.account-sign-in",
    method: "GET",
    path: "/svc/oauth/account/sign-in",
    version: "page",
    auth: "none",
    summary: "Sign in to the account console: the sign-in page, or straight to the console with a live session",
    description:
      "Every way in of the sign-in page works; afterwards the browser goes to /svc/account. No code or token is issued.",
    tags: ["sign-in"],
    request: { query: { type: "object", properties: { ui_locales: { type: "string", maxLength: 64 } } } },
    responses: {
      200: { description: "The sign-in page", contentType: "text/html" },
      303: { description: "Signed in already: to the account console" },
    },
    handler: (call) => authorizationAnswer(uc, call, { [CONSOLE_MARK]: "1", ui_locales: call.query.ui_locales }),
  });

export const accountRoutes = (uc: HostedUseCases) => [movedAccount, consoleSignIn(uc)];
