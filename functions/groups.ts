import { validators } from "../lib/compiled/groups-validators";
import { config } from "../lib/config";
import { perCall, requestChecks, services, ssoSecretKey } from "../lib/container";
import { groupUseCases } from "../lib/domain/groups/groups";
import { organizationUseCases } from "../lib/domain/organizations/organizations";
import { ssoUseCases } from "../lib/domain/organizations/sso";
import { createApiFunction } from "../lib/http/pipeline";
import { groupsRoutes } from "../lib/routes/groups";
import { organizationSsoRoutes } from "../lib/routes/organization-sso";
import { organizationsRoutes } from "../lib/routes/organizations";

const groups = perCall(() => {
  const { groups, accountSearch } = services();
  return groupUseCases({ groups, accounts: accountSearch });
});

// Organizations are groups of profile org (docs/organizations.md): the same function serves their admin calls.
const orgs = perCall(() => {
  const { organizations, groups, rightDefinitions, events } = services();
  return organizationUseCases({ orgs: organizations, groups, rightDefinitions, events });
});

// An organization's own OpenID Connect provider; its sign-ins come back to the hosted pages' federated callback.
const sso = perCall(() => {
  const { organizations, rightDefinitions, events, orgSso } = services();
  const callbackUrl = `${config().issuer}/oauth/federated/callback`;
  return ssoUseCases({
    orgs: organizations,
    rightDefinitions,
    events,
    sso: orgSso,
    secretKey: ssoSecretKey,
    callbackUrl,
  });
});

export const handler = createApiFunction(
  "groups",
  [...groupsRoutes(groups), ...organizationsRoutes(orgs), ...organizationSsoRoutes(sso)],
  validators,
  requestChecks(),
);
