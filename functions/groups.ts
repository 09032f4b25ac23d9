import { validators } from "../lib/compiled/groups-validators";
import { perCall, requestChecks, services } from "../lib/container";
import { groupUseCases } from "../lib/domain/groups/groups";
import { organizationUseCases } from "../lib/domain/organizations/organizations";
import { createApiFunction } from "../lib/http/pipeline";
import { groupsRoutes } from "../lib/routes/groups";
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

export const handler = createApiFunction(
  "groups",
  [...groupsRoutes(groups), ...organizationsRoutes(orgs)],
  validators,
  requestChecks(),
);
