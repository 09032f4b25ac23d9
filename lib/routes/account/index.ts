import { group } from "../../http/route";
import { activityRoutes } from "./activity";
import { confirmRoutes } from "./confirm";
import { signInMethodRoutes } from "./sign-in-methods";
import type { AccountConsoleUseCases } from "./use-cases";
import { yourDataRoutes } from "./your-data";

export type { AccountConsoleUseCases } from "./use-cases";

/**
 * The account console (docs/account.md): the signed-in user's own account, one file per
 * section, each a function of the use cases. Nothing here touches `uc` while the routes
 * are built (lib/routes/index.ts builds them with specsOnly()).
 */
export const accountRoutes = (uc: AccountConsoleUseCases) =>
  group("account", [...confirmRoutes(uc), ...signInMethodRoutes(uc), ...activityRoutes(uc), ...yourDataRoutes(uc)]);
