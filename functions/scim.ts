import { validators } from "../lib/compiled/scim-validators";
import { organizationJoins, perCall, requestChecks, scimBaseUrl, scimStore, services } from "../lib/container";
import { scimUserUseCases } from "../lib/domain/scim/users";
import { createApiFunction } from "../lib/http/pipeline";
import { scimRoutes } from "../lib/routes/scim";

// An organization's identity provider provisions its people here (docs/scim.md).
const users = perCall(() => {
  const { accounts, domainDirectory, organizations, sessions } = services();
  return scimUserUseCases({
    scim: scimStore(),
    accounts,
    domains: domainDirectory,
    joins: organizationJoins(),
    orgs: organizations,
    sessions,
    baseUrl: scimBaseUrl(),
  });
});

export const handler = createApiFunction(
  "scim",
  scimRoutes({ users, baseUrl: scimBaseUrl }),
  validators,
  requestChecks(() => ({ scimTokens: scimStore() })),
);
