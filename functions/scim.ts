import { validators } from "../lib/compiled/scim-validators";
import { organizationJoins, perCall, requestChecks, scimBaseUrl, scimStore, services } from "../lib/container";
import { scimGroupUseCases } from "../lib/domain/scim/groups";
import { scimUserUseCases } from "../lib/domain/scim/users";
import { createApiFunction } from "../lib/http/pipeline";
import { scimRoutes } from "../lib/routes/scim";

// An organization's identity provider provisions its people and groups here (docs/scim.md).
const groups = perCall(() => {
  const { users, groups } = scimStore();
  return scimGroupUseCases({ groups, users, baseUrl: scimBaseUrl() });
});

const users = perCall(() => {
  const { accounts, accountSearch, domainDirectory, organizations, sessions, events } = services();
  return scimUserUseCases({
    users: scimStore().users,
    leaveGroups: groups.leaveGroups,
    accounts,
    contacts: accountSearch,
    domains: domainDirectory,
    joins: organizationJoins(),
    orgs: organizations,
    sessions,
    events,
    baseUrl: scimBaseUrl(),
  });
});

export const handler = createApiFunction(
  "scim",
  scimRoutes({ users, groups, baseUrl: scimBaseUrl }),
  validators,
  requestChecks(() => ({ scimTokens: scimStore() })),
);
