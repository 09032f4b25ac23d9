import { randomUUID } from "node:crypto";
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type Account, PENDING_FIELD, type StoredContact } from "../domain/accounts/account";
import { AccountChangedError, AccountConflictError, type AccountRepository } from "../domain/accounts/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import { claimItem, releaseItem } from "./account-items";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { keys } from "./keys";
import { pendingWrite, type TransactItem } from "./pending-writes";
import { transactWrite } from "./transact";

type ContactOperations = Pick<
  AccountRepository,
  "verifyContactItem" | "provisionItem" | "claimOwner" | "recordWrongContactCode" | "applyContactChange"
>;

/** A contact's life after the account exists: its verification, its owner, a confirmed change. */
export function contactOperations({ client, tableName }: StoreDeps): ContactOperations {
  return {
    /** Marks a contact verified, provided it still holds the value that was confirmed. */
    verifyContactItem(sub: string, field: "email" | "phone_number", value: string): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.userProfile(sub),
          UpdateExpression: "SET #f.verified = :yes",
          // A contact changed since the code was sent must not become verified by it.
          ConditionExpression: "#f.#v = :value",
          ExpressionAttributeNames: { "#f": field, "#v": "value" },
          ExpressionAttributeValues: { ":yes": true, ":value": value },
        },
      });
    },

    /** An existing account taken over by an organization's provisioning, while its verified address is still `email`. */
    provisionItem(sub: string, orgId: string, email: string): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.userProfile(sub),
          UpdateExpression: "SET #scimOrg = :org",
          // The address that proved the domain must still be the account's and verified; no
          // other organization provisions it already.
          ConditionExpression: "#email.#v = :email AND #email.#verified = :yes AND attribute_not_exists(#scimOrg)",
          ExpressionAttributeNames: {
            "#scimOrg": "scimOrg",
            "#email": "email",
            "#v": "value",
            "#verified": "verified",
          },
          ExpressionAttributeValues: { ":org": orgId, ":email": email, ":yes": true },
        },
      });
    },

    /** Which account holds a contact value, from its uniqueness claim. */
    async claimOwner(field: "email" | "phone_number", value: string): Promise<string | undefined> {
      const key = field === "email" ? keys.uniqueEmail(value) : keys.uniquePhone(value);
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
      return Item?.owner as string | undefined;
    },

    /** Counts one wrong contact-change code; the attempts left, or undefined when none were. */
    async recordWrongContactCode(
      sub: string,
      field: "email" | "phone_number",
      state: string,
    ): Promise<number | undefined> {
      const answer = randomUUID();
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.userProfile(sub),
            UpdateExpression:
              "SET #p.attemptsLeft = #p.attemptsLeft - :one, #p.wrongAnswers = list_append(if_not_exists(#p.wrongAnswers, :none), :answers)",
            // Only the change this state names, never below zero, and each answer once: when
            // DynamoDB applied it but the answer was lost, the SDK's retry carries the same id.
            ConditionExpression:
              "#p.#state = :state AND #p.attemptsLeft > :zero AND NOT contains(#p.wrongAnswers, :answer)",
            ExpressionAttributeNames: { "#p": PENDING_FIELD[field], "#state": "state" },
            ExpressionAttributeValues: {
              ":one": 1,
              ":zero": 0,
              ":state": state,
              ":answer": answer,
              ":answers": [answer],
              ":none": [],
            },
            ReturnValues: "UPDATED_NEW",
          }),
        );
        return (Attributes?.[PENDING_FIELD[field]] as { attemptsLeft: number } | undefined)?.attemptsLeft;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        // Refused: no attempt was left, or this very answer was counted by the first try.
        const { Item } = await client.send(
          new GetCommand({ TableName: tableName, Key: keys.userProfile(sub), ConsistentRead: true }),
        );
        const pending = Item?.[PENDING_FIELD[field]] as { attemptsLeft: number; wrongAnswers?: string[] } | undefined;
        return pending?.wrongAnswers?.includes(answer) ? pending.attemptsLeft : undefined;
      }
    },

    /**
     * Applies a confirmed contact change: the contact takes the new value, verified, the
     * pending change goes, and the uniqueness claims move, all in one transaction
     * guarded by the very code that was checked and by the contact we read.
     */
    async applyContactChange(account: Account, field: "email" | "phone_number", now: number): Promise<Account> {
      const pending = account[PENDING_FIELD[field]];
      if (!pending) throw new AccountChangedError();
      const before = account[field];
      const next: StoredContact = { value: pending.value, verified: true };
      const names = { "#f": field, "#p": PENDING_FIELD[field], "#state": "state", "#v": "value" };
      const values: Record<string, unknown> = {
        ":next": next,
        ":now": now,
        ":state": pending.state,
        ":digest": pending.digest,
        ":zero": 0,
      };
      const guards = [
        // The code checked is still the stored one, with attempts left, not expired.
        "#p.#state = :state",
        "#p.digest = :digest",
        "#p.attemptsLeft > :zero",
        "#p.exp >= :now",
      ];
      if (before) {
        // The contact we release is still the one we read.
        guards.push("#f.#v = :before");
        values[":before"] = before.value;
      } else {
        guards.push("attribute_not_exists(#f)");
      }
      const items: TransactItem[] = [
        {
          Update: {
            TableName: tableName,
            Key: keys.userProfile(account.sub),
            UpdateExpression: "SET #f = :next, updatedAt = :now REMOVE #p",
            ConditionExpression: guards.join(" AND "),
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
      ];
      if (before?.value !== next.value) {
        items.push(claimItem(tableName, field, next.value, account.sub));
        if (before) items.push(releaseItem(tableName, field, before.value, account.sub));
      }
      try {
        await transactWrite(client, items);
      } catch (error) {
        const failed = failedConditions(error);
        if (failed?.includes(0)) throw new AccountChangedError();
        if (failed && failed.length > 0) throw new AccountConflictError([field]);
        throw error;
      }
      const changed: Account = { ...account, [field]: next, updatedAt: now };
      delete changed[PENDING_FIELD[field]];
      return changed;
    },
  };
}
