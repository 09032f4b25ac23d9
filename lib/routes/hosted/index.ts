import { group } from "../../http/route";
import { accountRoutes } from "./account";
import { authorizeRoutes } from "./authorize";
import { deviceRoutes } from "./device";
import { federationRoutes } from "./federation";
import { invitationRoutes } from "./invitation";
import { logoutRoutes } from "./logout";
import { passkeyRoutes } from "./passkeys";
import { qrRoutes } from "./qr";
import { registrationRoutes } from "./registration";
import { resetRoutes } from "./reset";
import { signInRoutes } from "./sign-in";
import { staticFileRoutes } from "./static-files";
import type { HostedUseCases } from "./use-cases";

export type { HostedUseCases } from "./use-cases";

/**
 * The hosted sign-in pages (docs/sign-in.md, docs/adding-a-hosted-page.md): one file per
 * family of pages, each a function of the use cases. Nothing here touches `uc` while the
 * routes are built (lib/routes/index.ts builds them with specsOnly()).
 */
export const hostedRoutes = (uc: HostedUseCases) =>
  group("hosted", [
    ...authorizeRoutes(uc),
    ...signInRoutes(uc),
    ...logoutRoutes(uc),
    ...registrationRoutes(uc),
    ...resetRoutes(uc),
    ...federationRoutes(uc),
    ...qrRoutes(uc),
    ...staticFileRoutes(),
    ...passkeyRoutes(uc),
    ...accountRoutes(uc),
    ...deviceRoutes(uc),
    ...invitationRoutes(uc),
  ]);
