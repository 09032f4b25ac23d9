import { randomUUID } from "node:crypto";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { PasswordHash } from "../domain/credentials/password-hash";
import type { AccountSnapshot, LeadRight, LoginRepository, LoginSnapshot } from "../domain/login/ports";
import type { PendingWrite, ReadPlan } from "../domain/unit-of-work";
import { type StoreDeps, toAccount } from "./accounts";
import { batchGetAll } from "./batch";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { batchReadPlan, pendingWrite, readPlan, transactItems } from "./pending-writes";
import { grantKey } from "./rights";
import { transactUnlessRefused } from "./transact";

function leadGrantKey(sub: string, leadRight: LeadRight | undefined) {
  return leadRight
    ? grantKey({
        subject: { kind: "user", id: leadRight.lead },
        object: { kind: "user", id: sub },
        right: leadRight.right,
      })
    : undefined;
}

const HOUR_SECONDS = 3600;

/** A failure is counted once, even when its request is sent again (see recordFailure). */
const failureNotCounted = "attribute_not_exists(lastFailure) OR lastFailure <> :failure";

export function createLoginStore({ client, tableName }: StoreDeps): LoginRepository {
  return {
    /**
     * One round trip: the account the username names directly (as sub), its credential
     * and counters, the claims for an e-mail or phone username, the address's counter.
     */
    async snapshot(
      candidate: { sub?: string; email?: string; phone?: string },
      ip: string | undefined,
      hour: number,
    ): Promise<LoginSnapshot> {
      const plan = batchReadPlan(this.snapshotPlan(candidate, ip, hour));
      return plan.read(await batchGetAll(client, tableName, plan.keys));
    },

    /** The snapshot's keys and reading, for a BatchGetItem of another step (see ReadPlan). */
    snapshotPlan(
      candidate: { sub?: string; email?: string; phone?: string },
      ip: string | undefined,
      hour: number,
    ): ReadPlan<LoginSnapshot> {
      const wanted = [
        ...(candidate.sub
          ? [
              keys.userProfile(candidate.sub),
              keys.passwordCredential(candidate.sub),
              keys.loginFailures(candidate.sub),
              keys.loginFailuresHour(candidate.sub, hour),
            ]
          : []),
        ...(candidate.email ? [keys.uniqueEmail(candidate.email)] : []),
        ...(candidate.phone ? [keys.uniquePhone(candidate.phone)] : []),
        ...(ip ? [keys.ipFailures(ip, hour)] : []),
      ];
      return readPlan({
        keys: wanted,
        read(found) {
          const find = (key: { PK: string; SK: string }) => found.find((i) => i.PK === key.PK && i.SK === key.SK);
          const sub = candidate.sub;
          const profile = sub ? find(keys.userProfile(sub)) : undefined;
          return {
            account: profile ? toAccount(profile) : undefined,
            credential: sub ? (find(keys.passwordCredential(sub)) as LoginSnapshot["credential"]) : undefined,
            counters: {
              consecutive: ((sub && find(keys.loginFailures(sub))?.count) as number) ?? 0,
              waitUntil: (sub && find(keys.loginFailures(sub))?.waitUntil) as number | undefined,
              hourly: ((sub && find(keys.loginFailuresHour(sub, hour))?.count) as number) ?? 0,
              ipHourly: ip ? ((find(keys.ipFailures(ip, hour))?.count as number) ?? 0) : 0,
            },
            ownerByEmail: candidate.email ? (find(keys.uniqueEmail(candidate.email))?.owner as string) : undefined,
            ownerByPhone: candidate.phone ? (find(keys.uniquePhone(candidate.phone))?.owner as string) : undefined,
          };
        },
      });
    },

    /**
     * A change that judges no password guess (a system or lead change) reads no failure
     * counters: the account, its credential and the lead's right only.
     */
    async accountSnapshot(sub: string, leadRight?: LeadRight): Promise<AccountSnapshot> {
      const plan = batchReadPlan(this.accountSnapshotPlan(sub, leadRight));
      return plan.read(await batchGetAll(client, tableName, plan.keys));
    },

    /** The account snapshot's keys and reading, for a BatchGetItem of another step. */
    accountSnapshotPlan(sub: string, leadRight?: LeadRight): ReadPlan<AccountSnapshot> {
      const leadGrant = leadGrantKey(sub, leadRight);
      return readPlan({
        keys: [...(leadGrant ? [leadGrant] : []), keys.userProfile(sub), keys.passwordCredential(sub)],
        read(found) {
          const find = (key: { PK: string; SK: string }) => found.find((i) => i.PK === key.PK && i.SK === key.SK);
          const profile = find(keys.userProfile(sub));
          return {
            account: profile ? toAccount(profile) : undefined,
            credential: find(keys.passwordCredential(sub)) as AccountSnapshot["credential"],
            ...(leadGrant && { leadHoldsRight: find(leadGrant) !== undefined }),
          };
        },
      });
    },

    /**
     * Counts one failure for the address and, when known, the account, with atomic
     * counters; sets the account's wait from the new consecutive count.
     */
    async recordFailure(
      sub: string | undefined,
      ip: string | undefined,
      now: number,
      waitFor: (consecutive: number) => number,
    ): Promise<void> {
      const hour = Math.floor(now / HOUR_SECONDS);
      // This failure's id: the SDK resends the very same request after a lost answer, so
      // the condition sees the id it already counted and the failure counts once.
      const failure = randomUUID();
      const bump = async (key: { PK: string; SK: string }, entity: string, expiresAt: number) => {
        try {
          const { Attributes } = await client.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key,
              UpdateExpression:
                "ADD #count :one SET entity = :entity, schemaVersion = :v, expiresAt = :exp, lastFailure = :failure",
              ConditionExpression: failureNotCounted,
              ExpressionAttributeNames: { "#count": "count" },
              ExpressionAttributeValues: {
                ":one": 1,
                ":entity": entity,
                ":v": 1,
                ":exp": expiresAt,
                ":failure": failure,
              },
              ReturnValues: "UPDATED_NEW",
              ReturnValuesOnConditionCheckFailure: "ALL_OLD",
            }),
          );
          return Number(Attributes?.count);
        } catch (error) {
          if (!isConditionalCheckFailed(error)) throw error;
          // Counted by the attempt whose answer was lost: the count it left.
          return Number((error as { Item?: Record<string, { N?: string }> }).Item?.count?.N);
        }
      };
      const nextHour = (hour + 1) * HOUR_SECONDS;
      const updates: Promise<unknown>[] = ip ? [bump(keys.ipFailures(ip, hour), ENTITY.ipFailures, nextHour)] : [];
      if (sub) {
        updates.push(bump(keys.loginFailuresHour(sub, hour), ENTITY.loginFailures, nextHour));
        updates.push(
          (async () => {
            // Consecutive failures are forgotten a day after the last one.
            const consecutive = await bump(keys.loginFailures(sub), ENTITY.loginFailures, now + 86_400);
            const wait = waitFor(consecutive);
            if (wait > 0) {
              await client.send(
                new UpdateCommand({
                  TableName: tableName,
                  Key: keys.loginFailures(sub),
                  UpdateExpression: "SET waitUntil = :until",
                  ExpressionAttributeValues: { ":until": now + wait },
                }),
              );
            }
          })(),
        );
      }
      await Promise.all(updates);
    },

    /** A successful login forgets the consecutive failures (in the login transaction). */
    clearFailuresItem(sub: string): PendingWrite {
      return pendingWrite({ Delete: { TableName: tableName, Key: keys.loginFailures(sub) } });
    },

    /** Records a successful login on the profile: state active, last login time. */
    loginRecordedItem(sub: string, now: number, clearForcedChange: boolean): PendingWrite {
      const index = gsi1.inactivity(sub, now);
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.userProfile(sub),
          UpdateExpression: `SET #state = :active, lastLoginAt = :now, GSI1PK = :gpk, GSI1SK = :gsk${clearForcedChange ? " REMOVE needPasswordChange" : ""}`,
          // An untouchable account stays untouchable; every other state becomes active.
          ConditionExpression:
            "attribute_exists(PK) AND (attribute_not_exists(#state) OR #state.#name <> :untouchable)",
          ExpressionAttributeNames: { "#state": "state", "#name": "name" },
          ExpressionAttributeValues: {
            ":active": { name: "active", checkedOn: now },
            ":now": now,
            ":untouchable": "untouchable",
            ":gpk": index.GSI1PK,
            ":gsk": index.GSI1SK,
          },
        },
      });
    },

    /** Records the login time of an untouchable account without touching its state. */
    touchItem(sub: string, now: number, clearForcedChange: boolean): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.userProfile(sub),
          UpdateExpression: `SET lastLoginAt = :now${clearForcedChange ? " REMOVE needPasswordChange" : ""}`,
          ConditionExpression: "attribute_exists(PK)",
          ExpressionAttributeValues: { ":now": now },
        },
      });
    },

    /** Runs a login's writes in one transaction; false when a guard refused them. */
    commit: (writes: PendingWrite[]): Promise<boolean> => transactUnlessRefused(client, transactItems(writes)),

    /** A changed password clears a forced change and stamps the profile (must exist). */
    passwordChangedItem(sub: string, now: number): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.userProfile(sub),
          UpdateExpression: "SET updatedAt = :now REMOVE needPasswordChange",
          ConditionExpression: "attribute_exists(PK)",
          ExpressionAttributeValues: { ":now": now },
        },
      });
    },

    /** The put of a new password (with its history), for the transaction that sets it. */
    credentialItem(sub: string, hash: PasswordHash, changedAt: number, history: PasswordHash[]): PendingWrite {
      return pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.passwordCredential, keys.passwordCredential(sub), { ...hash, changedAt, history }),
        },
      });
    },
  };
}
