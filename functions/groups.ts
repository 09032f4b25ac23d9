import { validators } from "../lib/compiled/groups-validators";
import { perCall, requestChecks, services } from "../lib/container";
import { groupUseCases } from "../lib/domain/groups/groups";
import { createApiFunction } from "../lib/http/pipeline";
import { groupsRoutes } from "../lib/routes/groups";

const groups = perCall(() => {
  const { groups, accountSearch } = services();
  return groupUseCases({ groups, accounts: accountSearch });
});

export const handler = createApiFunction("groups", groupsRoutes(groups), validators, requestChecks());
