import { validators } from "../lib/compiled/users-validators";
import { attributeDeps, perCall, requestChecks, services } from "../lib/container";
import { userUseCases } from "../lib/domain/accounts/users";
import { createApiFunction } from "../lib/http/pipeline";
import { usersRoutes } from "../lib/routes/users";

const users = perCall(() => {
  const { accounts, properties, accountSearch } = services();
  return userUseCases({ accounts, properties, accountSearch, attributes: attributeDeps });
});

export const handler = createApiFunction("users", usersRoutes(users), validators, requestChecks());
