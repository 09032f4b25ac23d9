import { createHash, randomUUID } from "node:crypto";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { PasswordHash, StoredPasswordHash } from "../domain/credentials/password-hash";
import type { AttemptClaim, LIMITS } from "../domain/login/brute-force";
import type {
  AccountSnapshot,
  LeadRight,
  LoginCandidate,
  LoginRepository,
  LoginSnapshot,
  TakenAttempt,
} from "../domain/login/ports";
import type { PendingWrite, Prefetch } from "../domain/unit-of-work";
import { toAccount } from "./account-items";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, gsi1, itemOf, keys } from "./keys";
import { batchPrefetch, pendingWrite, prefetchOf, transactItems } from "./pending-writes";
import { grantKey } from "./rights";
import { transactUnlessRefused, transactWrite } from "./transact";

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
const DAY_SECONDS = 86_400;

/** The consecutive and hourly counters of whom an attempt is counted against. */
function countedKeys(counted: AttemptClaim["counted"], hour: number) {
  if ("sub" in counted)
    return { consecutive: keys.loginFailures(counted.sub), hourly: keys.loginFailuresHour(counted.sub, hour) };
  // A digest: a login name of any size or alphabet makes a bounded key without separators.
  const digest = createHash("sha256").update(counted.login).digest("base64url");
  return { consecutive: keys.loginNameFailures(digest), hourly: keys.loginNameFailuresHour(digest, hour) };
}

type CandidateKeys = { consecutive: { PK: string; SK: string }; hourly: { PK: string; SK: string } };

/** A number of one item of a cancelled transaction as it stood (ReturnValuesOnConditionCheckFailure), raw or unmarshalled. */
function cancelledNumber(error: unknown, index: number, attribute: string): number {
  const reasons = (error as { CancellationReasons?: { Item?: Record<string, unknown> }[] }).CancellationReasons;
  const value = reasons?.[index]?.Item?.[attribute];
  return Number((value as { N?: string } | undefined)?.N ?? value ?? 0);
}

export function createLoginStore({ client, tableName }: StoreDeps): LoginRepository {
  return {
    /**
     * One round trip: the account the username names directly (as sub), its credential
     * and counters, the claims for an e-mail or phone username, the address's counter.
     */
    async snapshot(candidate: LoginCandidate, addresses: string[], hour: number): Promise<LoginSnapshot> {
      const plan = batchPrefetch(this.snapshotPrefetch(candidate, addresses, hour));
      return plan.read(await batchGetAll(client, tableName, plan.keys));
    },

    /** The snapshot's keys and reading, for a BatchGetItem of another step (see Prefetch). */
    snapshotPrefetch(candidate: LoginCandidate, addresses: string[], hour: number): Prefetch<LoginSnapshot> {
      const ips = [...new Set(addresses)];
      // A name that turns out to name no account is judged by its own counters, read in the same call.
      const byName: CandidateKeys | undefined =
        candidate.name === undefined ? undefined : countedKeys({ login: candidate.name }, hour);
      const wanted = [
        ...(byName ? [byName.consecutive, byName.hourly] : []),
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
        ...ips.map((ip) => keys.ipFailures(ip, hour)),
      ];
      return prefetchOf({
        keys: wanted,
        read(found) {
          const find = (key: { PK: string; SK: string }) => found.find((i) => i.PK === key.PK && i.SK === key.SK);
          const sub = candidate.sub;
          const profile = sub ? find(keys.userProfile(sub)) : undefined;
          const counted: CandidateKeys | undefined =
            sub && profile
              ? { consecutive: keys.loginFailures(sub), hourly: keys.loginFailuresHour(sub, hour) }
              : byName;
          return {
            account: profile ? toAccount(profile) : undefined,
            credential: sub ? (find(keys.passwordCredential(sub)) as LoginSnapshot["credential"]) : undefined,
            counters: {
              consecutive: ((counted && find(counted.consecutive)?.count) as number) ?? 0,
              waitUntil: (counted && find(counted.consecutive)?.waitUntil) as number | undefined,
              hourly: ((counted && find(counted.hourly)?.count) as number) ?? 0,
              ipHourly: Math.max(0, ...ips.map((ip) => (find(keys.ipFailures(ip, hour))?.count as number) ?? 0)),
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
      const plan = batchPrefetch(this.accountSnapshotPrefetch(sub, leadRight));
      return plan.read(await batchGetAll(client, tableName, plan.keys));
    },

    /** The account snapshot's keys and reading, for a BatchGetItem of another step. */
    accountSnapshotPrefetch(sub: string, leadRight?: LeadRight): Prefetch<AccountSnapshot> {
      const leadGrant = leadGrantKey(sub, leadRight);
      return prefetchOf({
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
     * One TransactWriteItems: every counter the guess counts against takes it under its
     * limit, or none does. The consecutive counter has two forms: below the free failures
     * it only counts; from there on it needs no wait running and puts up the longest one
     * until the guess is judged. The form follows the count read; when the count moved
     * meanwhile, the other form is tried once more. An SDK retry after a lost answer
     * carries the same ClientRequestToken and takes nothing twice.
     */
    async takeAttempt(claim: AttemptClaim, limits: typeof LIMITS): Promise<TakenAttempt | undefined> {
      const { consecutive, hourly } = countedKeys(claim.counted, claim.hour);
      const addresses = [...new Set(claim.addresses)];
      const nextHour = (claim.hour + 1) * HOUR_SECONDS;
      const under = (key: { PK: string; SK: string }, entity: string, cap: number, expiresAt: number, id: string) => ({
        Update: {
          TableName: tableName,
          Key: key,
          UpdateExpression:
            "ADD #count :one SET entity = :entity, schemaVersion = :v, expiresAt = :exp, lastFailure = :id",
          ConditionExpression: "attribute_not_exists(#count) OR #count < :cap",
          ExpressionAttributeNames: { "#count": "count" },
          ExpressionAttributeValues: {
            ":one": 1,
            ":entity": entity,
            ":v": 1,
            ":exp": expiresAt,
            ":id": id,
            ":cap": cap,
          },
        },
      });
      let seen = claim.seenConsecutive;
      for (let round = 0; round < 3; round++) {
        const id = randomUUID();
        const guarded = seen >= limits.freeBelow;
        const counter = guarded
          ? {
              Update: {
                TableName: tableName,
                Key: consecutive,
                UpdateExpression:
                  "ADD #count :one SET entity = :entity, schemaVersion = :v, expiresAt = :exp, lastFailure = :id, waitUntil = :pending",
                // Past the free failures: no wait running, and under the cap on consecutive failures.
                ConditionExpression:
                  "#count >= :free AND #count < :cap AND (attribute_not_exists(waitUntil) OR waitUntil <= :now)",
                ExpressionAttributeNames: { "#count": "count" },
                ExpressionAttributeValues: {
                  ":one": 1,
                  ":entity": ENTITY.loginFailures,
                  ":v": 1,
                  ":exp": claim.now + DAY_SECONDS,
                  ":id": id,
                  ":pending": claim.now + limits.pendingWait,
                  ":free": limits.freeBelow,
                  ":cap": limits.consecutiveCap,
                  ":now": claim.now,
                },
                ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const,
              },
            }
          : {
              Update: {
                ...under(consecutive, ENTITY.loginFailures, limits.freeBelow, claim.now + DAY_SECONDS, id).Update,
                ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const,
              },
            };
        try {
          await transactWrite(client, [
            counter,
            under(hourly, ENTITY.loginFailures, limits.hourlyCap, nextHour, id),
            ...addresses.map((ip) =>
              under(keys.ipFailures(ip, claim.hour), ENTITY.ipFailures, limits.addressCap, nextHour, id),
            ),
          ]);
          return { id, counted: claim.counted, addresses, hour: claim.hour, consecutive: seen + 1, guarded };
        } catch (error) {
          const failed = failedConditions(error);
          if (!failed?.length) throw error;
          // Only the consecutive counter refused: its count may have moved into the other form.
          if (failed.length > 1 || failed[0] !== 0) return undefined;
          const count = cancelledNumber(error, 0, "count");
          const waiting = cancelledNumber(error, 0, "waitUntil") > claim.now;
          if (waiting || count >= limits.freeBelow === guarded) return undefined;
          seen = count;
        }
      }
      return undefined;
    },

    async settleFailure(attempt: TakenAttempt, waitUntil: number): Promise<void> {
      if (!attempt.guarded && waitUntil === 0) return;
      const { consecutive } = countedKeys(attempt.counted, attempt.hour);
      await client
        .send(
          new UpdateCommand({
            TableName: tableName,
            Key: consecutive,
            UpdateExpression: waitUntil > 0 ? "SET waitUntil = :until" : "REMOVE waitUntil",
            // Only the wait this attempt put up: a later attempt or a login may have moved on.
            ConditionExpression: "lastFailure = :id",
            ExpressionAttributeValues: { ":id": attempt.id, ...(waitUntil > 0 && { ":until": waitUntil }) },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionalCheckFailed(error)) throw error;
        });
    },

    async giveBack(attempt: TakenAttempt, forget: boolean): Promise<void> {
      const items = this.giveBackItems(attempt);
      await transactWrite(client, transactItems(forget ? items : items.slice(1)));
    },

    /** The consecutive counter's delete first, then the hour's and the addresses' counts back. */
    giveBackItems(attempt: TakenAttempt): PendingWrite[] {
      const { consecutive, hourly } = countedKeys(attempt.counted, attempt.hour);
      const nextHour = (attempt.hour + 1) * HOUR_SECONDS;
      // No condition, so a give-back never cancels the login it rides in; an item the TTL
      // took meanwhile comes back as a stub that expires again.
      const back = (key: { PK: string; SK: string }) =>
        pendingWrite({
          Update: {
            TableName: tableName,
            Key: key,
            UpdateExpression: "ADD #count :minusOne SET expiresAt = if_not_exists(expiresAt, :exp)",
            ExpressionAttributeNames: { "#count": "count" },
            ExpressionAttributeValues: { ":minusOne": -1, ":exp": nextHour },
          },
        });
      return [
        pendingWrite({ Delete: { TableName: tableName, Key: consecutive } }),
        back(hourly),
        ...attempt.addresses.map((ip) => back(keys.ipFailures(ip, attempt.hour))),
      ];
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
    credentialItem(sub: string, hash: PasswordHash, changedAt: number, history: StoredPasswordHash[]): PendingWrite {
      return pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.passwordCredential, keys.passwordCredential(sub), { ...hash, changedAt, history }),
        },
      });
    },

    /** Same password, new hash: a password change or another sign-in's rehash in between wins. */
    rehashItem(sub: string, hash: PasswordHash, replaces: StoredPasswordHash): PendingWrite {
      return pendingWrite({
        Update: {
          TableName: tableName,
          Key: keys.passwordCredential(sub),
          // Fields only other systems' hashes have: PBKDF2's rounds, the unnormalized scrypt flag.
          UpdateExpression:
            "SET alg = :alg, N = :n, r = :r, p = :p, keyLength = :len, salt = :salt, #hash = :hash REMOVE iterations, unnormalized",
          ConditionExpression: "#hash = :old",
          ExpressionAttributeNames: { "#hash": "hash" },
          ExpressionAttributeValues: {
            ":alg": hash.alg,
            ":n": hash.N,
            ":r": hash.r,
            ":p": hash.p,
            ":len": hash.keyLength,
            ":salt": hash.salt,
            ":hash": hash.hash,
            ":old": replaces.hash,
          },
        },
      });
    },
  };
}
