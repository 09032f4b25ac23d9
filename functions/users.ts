import { config } from "../lib/config";
import { changeAccount, readAccount } from "../lib/domain/accounts/attributes";
import type { AccountChangeBody } from "../lib/domain/accounts/change-plan";
import { createUserSearch } from "../lib/domain/search/users";
import { jsonResult } from "../lib/http/error-body";
import { createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

let searchUsers: ReturnType<typeof createUserSearch> | undefined;

export const handler = createApiFunction("users", {
  "users.get": async (call) => jsonResult(200, await readAccount(services().accounts, call.subject as string)),

  "users.change": async (call) =>
    jsonResult(
      200,
      await changeAccount(
        services().accounts,
        call.subject as string,
        call.body as AccountChangeBody,
        call.principal?.mode ?? "system",
      ),
    ),

  "users.search": async (call) => {
    searchUsers ??= createUserSearch(services().accountSearch, config().settings.search.indexedAttributes);
    return jsonResult(200, await searchUsers(call.query.query));
  },
});
