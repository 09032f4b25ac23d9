import { validators } from "../lib/compiled/groups-validators";
import { invitationDeps, perCall, requestChecks, services } from "../lib/container";
import { groupUseCases } from "../lib/domain/groups/groups";
import { invitationUseCases } from "../lib/domain/organizations/invitations";
import { organizationUseCases } from "../lib/domain/organizations/organizations";
import { createApiFunction } from "../lib/http/pipeline";
import { groupsRoutes } from "../lib/routes/groups";
import { invitationRoutes } from "../lib/routes/organization-invitations";
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

// Their invitations too (docs/organizations.md#invitations).
const invitations = perCall(() => invitationUseCases(invitationDeps()));

export const handler = createApiFunction(
  "groups",
  [...groupsRoutes(groups), ...organizationsRoutes(orgs), ...invitationRoutes(invitations, orgs)],
  validators,
  requestChecks(),
);
