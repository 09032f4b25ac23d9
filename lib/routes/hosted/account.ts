import { seeOther } from "../../http/browser";
import { route } from "../../http/route";

/** The account page moved into the account console (docs/account.md); its old address leads there. */
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

export const accountRoutes = () => [movedAccount];
