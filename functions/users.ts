import { servedRoutes } from "../lib/compiled/users-routes";
import { config } from "../lib/config";
import type { Account } from "../lib/domain/accounts/account";
import { changeAccount, readAccount } from "../lib/domain/accounts/attributes";
import type { AccountChangeBody } from "../lib/domain/accounts/change-plan";
import { confirmContactChange } from "../lib/domain/accounts/contact-confirmation";
import { changeProperties, type PropertiesChange, readProperties } from "../lib/domain/accounts/properties";
import { createUserSearch } from "../lib/domain/search/users";
import { readMadeFor } from "../lib/http/along-session";
import { jsonResult } from "../lib/http/error-body";
import { type ApiCall, createApiFunction } from "../lib/http/pipeline";
import { subjectAccountBesideKeys } from "../lib/http/subject-account-beside-keys";
import { attributeDeps } from "../lib/messaging";
import { services } from "../lib/services";

function confirmation(field: "phone_number" | "email") {
  return async (call: ApiCall) => {
    const { value } = call.body as { value: string };
    const answer = await confirmContactChange(
      services().accounts,
      call.subject as string,
      field,
      call.params.state,
      value,
      call.account,
    );
    return jsonResult(answer.status, answer.body);
  };
}

let searchUsers: ReturnType<typeof createUserSearch> | undefined;

export const handler = createApiFunction(
  "users",
  servedRoutes,
  {
    "users.get": async (call) =>
      jsonResult(
        200,
        await readAccount(
          services().accounts,
          call.subject as string,
          call.account ?? readMadeFor<Account | undefined>(call.alongSession, call.subject)?.value,
        ),
      ),

    "users.change": async (call) =>
      jsonResult(
        200,
        await changeAccount(attributeDeps(), call.subject as string, call.body as AccountChangeBody, {
          mode: call.principal?.mode ?? "system",
          language: call.language,
        }),
      ),

    "users.props-get": async (call) =>
      jsonResult(200, await readProperties(services().properties, call.subject as string)),

    "users.props-change": async (call) =>
      jsonResult(
        200,
        await changeProperties(services().properties, call.subject as string, call.body as PropertiesChange),
      ),

    "users.validate_mobile": confirmation("phone_number"),
    "users.validate_email": confirmation("email"),
    "users.search": async (call) => {
      searchUsers ??= createUserSearch(services().accountSearch, config().settings.search.indexedAttributes);
      return jsonResult(200, await searchUsers(call.query.query));
    },
  },
  { alongKeys: { "users.get": subjectAccountBesideKeys } },
);
