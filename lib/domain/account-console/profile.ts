import {
  type Account,
  NAME_ATTRIBUTES,
  type NameAttribute,
  PENDING_FIELD,
  type StoredContact,
} from "../accounts/account";
import { type AttributeDeps, changeAccount } from "../accounts/attributes";
import type { AccountChangeBody } from "../accounts/change-plan";
import { type ConfirmationAnswer, confirmContactChange } from "../accounts/contact-confirmation";
import type { AccountRepository } from "../accounts/ports";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { ApiError } from "../errors";
import type { Courier, Language } from "../messages/ports";
import { sendSecurityNotice } from "./security-notice";
import type { ConsoleActor } from "./sign-in-methods";

export type ContactField = "email" | "phone_number";

export interface ProfileDeps {
  accounts: AccountRepository;
  /** What an attribute change needs, a courier among them: built only for changes. */
  attributes: () => AttributeDeps;
  events: Pick<SecurityEventLog, "record">;
  /** The notice of a changed contact, to the account's e-mail as it was. */
  notices: { courier: Courier; log: (message: string, fields: Record<string, unknown>) => void };
}

/** A contact change waiting for its code, as the page shows it (never the code's digest). */
export interface PendingView {
  value: string;
  state: string;
  attemptsLeft: number;
}

export interface ProfileView {
  names: Partial<Record<NameAttribute, string>>;
  email?: StoredContact;
  phone_number?: StoredContact;
  pending: Partial<Record<ContactField, PendingView>>;
}

/**
 * The management API's event types for the same changes (lib/routes/users.ts): the route
 * ids users.change, users.validate_email and users.validate_mobile.
 */
const EVENT_TYPES = { change: "users.change", email: "users.validate_email", phone_number: "users.validate_mobile" };

/** What a code typed for a waiting change came to. */
export type CodeOutcome =
  | { status: "changed" }
  | { status: "wrong_code"; attemptsLeft: number }
  | { status: "no_attempts_left" | "code_expired" };

function outcomeOf(answer: ConfirmationAnswer): CodeOutcome {
  switch (answer.status) {
    case 200:
      return { status: "changed" };
    case 400:
      return { status: "wrong_code", attemptsLeft: answer.body.attempts_left };
    case 429:
      return { status: "no_attempts_left" };
    case 410:
      return { status: "code_expired" };
  }
}

/**
 * The account console's profile (docs/account/profile.md): names, and the e-mail and phone
 * changed through the management API's own confirmation flow (interface §4.6, 3.2): the
 * new value waits on the account until the code sent to it comes back. Each change and
 * each refusal records the security event the API records for it, with the refusal's code
 * as its result.
 */
export function profileUseCases(deps: ProfileDeps) {
  async function recorded<T>(
    sub: string,
    actor: ConsoleActor,
    type: string,
    prms: SecurityEvent["prms"],
    run: () => Promise<T>,
    resultOf: (value: T) => string = () => "ok",
  ): Promise<T> {
    let value: T;
    try {
      value = await run();
    } catch (error) {
      if (error instanceof ApiError) await deps.events.record({ ...actor, sbj: sub, type, result: error.error, prms });
      throw error;
    }
    await deps.events.record({ ...actor, sbj: sub, type, result: resultOf(value), prms });
    return value;
  }

  return {
    /** What the section shows; a waiting change whose code expired is not shown (the API's notes hide it too). */
    view(account: Account, now: number): ProfileView {
      const pending: ProfileView["pending"] = {};
      for (const field of ["email", "phone_number"] as const) {
        const waiting = account[PENDING_FIELD[field]];
        if (waiting && waiting.exp >= now)
          pending[field] = { value: waiting.value, state: waiting.state, attemptsLeft: waiting.attemptsLeft };
      }
      const names = Object.fromEntries(NAME_ATTRIBUTES.flatMap((n) => (account[n] ? [[n, account[n]]] : [])));
      return {
        names,
        ...(account.email && { email: account.email }),
        ...(account.phone_number && { phone_number: account.phone_number }),
        pending,
      };
    },

    /**
     * The names as typed: an emptied field removes that name, an unchanged one is not
     * sent. Answers whether anything changed.
     */
    async changeNames(
      account: Account,
      typed: Partial<Record<NameAttribute, string>>,
      language: Language,
      actor: ConsoleActor,
    ): Promise<boolean> {
      const body: AccountChangeBody = {};
      for (const name of NAME_ATTRIBUTES) {
        const value = typed[name]?.trim();
        if (value === undefined || value === (account[name] ?? "")) continue;
        body[name] = value === "" ? null : value;
      }
      const attrs = Object.keys(body);
      if (attrs.length === 0) return false;
      await recorded(account.sub, actor, EVENT_TYPES.change, { attrs }, () =>
        changeAccount(deps.attributes(), account.sub, body, { mode: "user", language, account }),
      );
      return true;
    },

    /**
     * A code to the new address, which then waits on the account (vrf false, as a user token
     * may only ask). Whether another account holds it is told when the code comes back.
     */
    startContactChange(account: Account, field: ContactField, value: string, language: Language, actor: ConsoleActor) {
      const body: AccountChangeBody = { [field]: { value, vrf: false } };
      return recorded(account.sub, actor, EVENT_TYPES.change, { attrs: [field] }, () =>
        changeAccount(deps.attributes(), account.sub, body, { mode: "user", language, account }),
      );
    },

    /** The code typed for the change waiting under `state`; a right one makes the change. */
    async confirmContactChange(
      account: Account,
      field: ContactField,
      state: string,
      code: string,
      actor: ConsoleActor,
      language: Language,
    ): Promise<CodeOutcome> {
      const outcome = await recorded(
        account.sub,
        actor,
        EVENT_TYPES[field],
        { attr: field },
        async () => outcomeOf(await confirmContactChange(deps.accounts, account.sub, field, state, code, account)),
        (outcome) => (outcome.status === "changed" ? "ok" : outcome.status),
      );
      if (outcome.status === "changed") {
        const change = field === "email" ? "email-changed" : "phone-changed";
        await sendSecurityNotice(deps.notices, account, change, language, Math.floor(Date.now() / 1000));
      }
      return outcome;
    },
  };
}

export type ProfileUseCases = ReturnType<typeof profileUseCases>;
