import { group } from "../../http/route";
import { activityRoutes } from "./activity";
import { appRoutes } from "./apps";
import { confirmRoutes } from "./confirm";
import { deviceRoutes } from "./devices";
import { linkedRoutes } from "./linked";
import { passwordRoutes } from "./password";
import { profileRoutes } from "./profile";
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
  group("account", [
    ...confirmRoutes(uc),
    ...profileRoutes(uc),
    ...passwordRoutes(uc),
    ...signInMethodRoutes(uc),
    ...deviceRoutes(uc),
    ...appRoutes(uc),
    ...linkedRoutes(uc),
    ...activityRoutes(uc),
    ...yourDataRoutes(uc),
  ]);
