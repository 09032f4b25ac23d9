import { validators } from "../lib/compiled/users-validators";
import { config } from "../lib/config";
import { accountDeletionDeps, attributeDeps, perCall, requestChecks, services } from "../lib/container";
import { accountRemovalUseCases } from "../lib/domain/accounts/deletion";
import { userUseCases } from "../lib/domain/accounts/users";
import { createApiFunction } from "../lib/http/pipeline";
import { usersRoutes } from "../lib/routes/users";

const users = perCall(() => {
  const { accounts, properties, accountSearch } = services();
  const indexedAttributes = config().settings.search.indexedAttributes;
  return userUseCases({ accounts, properties, accountSearch, attributes: attributeDeps, indexedAttributes });
});

const deletion = perCall(() => accountRemovalUseCases(accountDeletionDeps()));

export const handler = createApiFunction("users", usersRoutes(users, deletion), validators, requestChecks());
