import { randomUUID } from "node:crypto";
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import type { StoredCode } from "../domain/codes/one-time-code";
import type { ContactField, PendingRegistration } from "../domain/registration/pending";
import type { RegistrationCheck, RegistrationRepository } from "../domain/registration/ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";
import { countedInHour, HOUR_SECONDS } from "./hourly-count";
import { ENTITY, itemOf, keys } from "./keys";
import { pendingWrite, transactItems } from "./pending-writes";
import { transactUnlessRefused } from "./transact";

// Conditions, named so each write says why it may fail.
/** A contact is confirmed once; a late duplicate submission must not count as an attempt. */
const stillWaiting = "#c.#f.confirmed = :no";
/** No code is accepted, right or wrong, once its attempts are spent. */
const attemptsRemain = "#c.#f.attemptsLeft > :zero";
/**
 * Each wrong answer is counted once: when DynamoDB applied the update but its answer was
 * lost, the SDK sends the same update again (same answer id), and this refuses it.
 */
const answerNotCounted = "NOT contains(#c.#f.wrongAnswers, :answer)";
/** The code compared is the one stored now, not one replaced by a resend meanwhile. */
const sameCode = "#c.#f.digest = :digest";
/** An expired code is never accepted, even before TTL removes the item. */
const notExpired = "#c.#f.exp >= :now";
/** Resends are capped so the service cannot be used to flood a phone or mailbox. */
const resendsRemain = "#c.#f.sent < :maxSent";
/** A resend stores its new code once: the SDK sending the same request again finds it stored. */
const notThisCode = "#c.#f.digest <> :digest";

function fromItem(item: Record<string, unknown>): PendingRegistration {
  return {
    context: item.context as string,
    account: item.account as PendingRegistration["account"],
    passwordHash: item.passwordHash as PendingRegistration["passwordHash"],
    contacts: (item.contacts as PendingRegistration["contacts"]) ?? {},
    dynamicClientId: item.dynamicClientId as string | undefined,
    accountCreated: Boolean(item.accountCreated),
    clientId: item.clientId as string,
    createdAt: item.createdAt as number,
    expiresAt: item.expiresAt as number,
  };
}

export function createRegistrationStore({ client, tableName }: StoreDeps): RegistrationRepository {
  const contactNames = (field: ContactField) => ({ "#c": "contacts", "#f": field });
  const putInput = (pending: PendingRegistration) => ({
    TableName: tableName,
    Item: itemOf(ENTITY.registration, keys.registration(pending.context), pending),
    // Contexts are random; a collision must fail rather than replace another registration.
    ConditionExpression: "attribute_not_exists(PK)",
  });

  return {
    /** One BatchGetItem: which unique values are taken, and the dynamic client's state. */
    async check(
      sub: string,
      email: string | undefined,
      phone: string | undefined,
      dynamicClientId: string | undefined,
    ): Promise<RegistrationCheck> {
      const wanted = [
        { field: "sub" as const, key: keys.userProfile(sub) },
        ...(email ? [{ field: "email" as const, key: keys.uniqueEmail(email) }] : []),
        ...(phone ? [{ field: "phone_number" as const, key: keys.uniquePhone(phone) }] : []),
      ];
      const dynamicKey = dynamicClientId ? keys.dynamicClient(dynamicClientId) : undefined;
      const requested = [...wanted.map((w) => w.key), ...(dynamicKey ? [dynamicKey] : [])];
      const found: Record<string, unknown>[] = [];
      let pending: Record<string, unknown>[] | undefined = requested.map((key) => ({ ...key }));
      while (pending && pending.length > 0) {
        const answer: BatchGetCommandOutput = await client.send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: {
                Keys: pending,
                ConsistentRead: true,
                ProjectionExpression: "PK, SK, #s",
                ExpressionAttributeNames: { "#s": "status" },
              },
            },
          }),
        );
        found.push(...(answer.Responses?.[tableName] ?? []));
        pending = answer.UnprocessedKeys?.[tableName]?.Keys;
      }
      const exists = (key: { PK: string; SK: string }) => found.find((i) => i.PK === key.PK && i.SK === key.SK);
      const used = wanted.filter((w) => exists(w.key)).map((w) => w.field);
      if (!dynamicKey) return { used };
      const dynamic = exists(dynamicKey);
      return { used, dynamicClient: !dynamic ? "unknown" : dynamic.status === "free" ? "free" : "bound" };
    },

    /** The put of a new pending registration, for a transaction or on its own. */
    putItem: (pending: PendingRegistration) => pendingWrite({ Put: putInput(pending) }),

    async save(pending: PendingRegistration): Promise<void> {
      await client.send(new PutCommand(putInput(pending)));
    },

    /** The registration, or undefined when unknown, completed or expired. */
    async get(context: string, now: number): Promise<PendingRegistration | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.registration(context), ConsistentRead: true }),
      );
      if (!Item || (Item.expiresAt as number) < now) return undefined;
      return fromItem(Item);
    },

    /** Counts one wrong code; undefined when no attempt was left to count. */
    async recordWrongCode(context: string, field: ContactField): Promise<PendingRegistration | undefined> {
      const answer = randomUUID();
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.registration(context),
            UpdateExpression:
              "SET #c.#f.attemptsLeft = #c.#f.attemptsLeft - :one, #c.#f.wrongAnswers = list_append(if_not_exists(#c.#f.wrongAnswers, :none), :answers)",
            ConditionExpression: `${attemptsRemain} AND ${stillWaiting} AND ${answerNotCounted}`,
            ExpressionAttributeNames: contactNames(field),
            ExpressionAttributeValues: {
              ":one": 1,
              ":zero": 0,
              ":no": false,
              ":answer": answer,
              ":answers": [answer],
              ":none": [],
            },
            ReturnValues: "ALL_NEW",
          }),
        );
        return Attributes && fromItem(Attributes);
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },

    /**
     * The update that marks a contact confirmed, guarded so that only the stored code,
     * unexpired and with attempts left, can confirm it once.
     */
    confirmItem(context: string, field: ContactField, digest: string, now: number): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.registration(context),
          UpdateExpression: "SET #c.#f.confirmed = :yes",
          ConditionExpression: [stillWaiting, attemptsRemain, sameCode, notExpired].join(" AND "),
          ExpressionAttributeNames: contactNames(field),
          ExpressionAttributeValues: { ":yes": true, ":no": false, ":zero": 0, ":digest": digest, ":now": now },
        },
      });
    },

    async takeNotice(field: ContactField, value: string, now: number, max: number): Promise<boolean> {
      const hour = Math.floor(now / HOUR_SECONDS);
      const key = keys.registrationNoticesSent(field, value, hour);
      try {
        await client.send(new UpdateCommand(countedInHour(tableName, key, ENTITY.registrationNoticesSent, max, hour)));
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    async replaceCode(context: string, field: ContactField, code: StoredCode, maxSent: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.registration(context),
            UpdateExpression:
              "SET #c.#f.salt = :salt, #c.#f.digest = :digest, #c.#f.exp = :exp, #c.#f.attemptsLeft = :attempts, #c.#f.sent = #c.#f.sent + :one",
            ConditionExpression: `${stillWaiting} AND ${resendsRemain} AND ${notThisCode}`,
            ExpressionAttributeNames: contactNames(field),
            ExpressionAttributeValues: {
              ":salt": code.salt,
              ":digest": code.digest,
              ":exp": code.exp,
              ":attempts": code.attemptsLeft,
              ":one": 1,
              ":no": false,
              ":maxSent": maxSent,
            },
            ReturnValuesOnConditionCheckFailure: "ALL_OLD",
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        // Refused, unless the refusal is this very code, stored by the attempt whose answer was lost.
        const old = (error as { Item?: { contacts?: { M?: Record<string, { M?: { digest?: { S?: string } } }> } } })
          .Item;
        return old?.contacts?.M?.[field]?.M?.digest?.S === code.digest;
      }
    },

    /**
     * Removes the registration as it completes: only once, only when every other contact
     * is confirmed, and, for the contact confirmed by this very request, with the same
     * guards as `confirmItem` (one transaction cannot both update and delete an item).
     */
    completeItem(
      context: string,
      confirmedFields: ContactField[],
      finalCode: { field: ContactField; digest: string; now: number },
    ): PendingWrite {
      const names: Record<string, string> = { "#c": "contacts", "#f": finalCode.field };
      const others = confirmedFields.map((field, i) => {
        names[`#o${i}`] = field;
        return `#c.#o${i}.confirmed = :yes`;
      });
      return pendingWrite({
        Delete: {
          TableName: tableName,
          Key: keys.registration(context),
          // Single use: a context that completed (or never existed) cannot complete again.
          ConditionExpression: [
            "attribute_exists(PK)",
            ...others,
            stillWaiting,
            attemptsRemain,
            sameCode,
            notExpired,
          ].join(" AND "),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ...(others.length > 0 && { ":yes": true }),
            ":no": false,
            ":zero": 0,
            ":digest": finalCode.digest,
            ":now": finalCode.now,
          },
        },
      });
    },

    /** Runs flow writes in one transaction; false when any guard refused them. */
    commit: (writes: PendingWrite[]): Promise<boolean> => transactUnlessRefused(client, transactItems(writes)),
  };
}
