import { changeAccount, readAccount } from "../lib/domain/accounts/attributes";
import type { AccountChangeBody } from "../lib/domain/accounts/change-plan";
import { jsonResult } from "../lib/http/error-body";
import { createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

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
});
