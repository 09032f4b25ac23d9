import { createUserSearch } from "../search/users";
import type { Account } from "./account";
import { type AttributeDeps, changeAccount, readAccount } from "./attributes";
import type { AccountChangeBody } from "./change-plan";
import { confirmContactChange } from "./contact-confirmation";
import type { AccountRepository, AccountSearch } from "./ports";
import { changeProperties, type PropertiesChange, type PropertyRepository, readProperties } from "./properties";

export interface UserDeps {
  accounts: AccountRepository;
  properties: PropertyRepository;
  accountSearch: AccountSearch;
  /** What an attribute change needs, a courier among them: built only for changes, so reads build none. */
  attributes: () => AttributeDeps;
  /** search.indexedAttributes: the attributes a lookup may start from. */
  indexedAttributes: readonly string[];
}

export type UserUseCases = ReturnType<typeof userUseCases>;

/** An account's attributes, properties and contact changes, and the search (interface §4.6, 4.7, 4.11). */
export function userUseCases(deps: UserDeps) {
  return {
    /** `alreadyRead`: a user token's account, read with its session check. */
    read: (sub: string, alreadyRead?: Account) => readAccount(deps.accounts, sub, alreadyRead),

    change: (
      sub: string,
      body: AccountChangeBody,
      caller: { mode: "user" | "system"; language: "ru" | "en"; account?: Account },
    ) => changeAccount(deps.attributes(), sub, body, caller),

    /** A waiting contact change confirmed with its code (interface §3.2). */
    confirmContact: (
      sub: string,
      field: "phone_number" | "email",
      state: string,
      code: string,
      alreadyRead?: Account,
    ) => confirmContactChange(deps.accounts, sub, field, state, code, alreadyRead),

    properties: (sub: string) => readProperties(deps.properties, sub),
    changeProperties: (sub: string, change: PropertiesChange) => changeProperties(deps.properties, sub, change),

    search: (query: string) => createUserSearch(deps.accountSearch, deps.indexedAttributes)(query),
  };
}
