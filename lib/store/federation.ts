import { randomUUID } from "node:crypto";
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { AccountNotFoundError } from "../domain/accounts/ports";
import { FederatedAccountTakenError, type FederationRepository, type NewLink } from "../domain/federation/ports";
import type { BindState, FederatedLink, SealedTokens, StoredTokens } from "../domain/federation/records";
import type { StoreDeps } from "./client";
import { failedConditions, isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys, SCHEMA_VERSION } from "./keys";
import { queryAll } from "./paging";
import { readUserPartition } from "./partition-read";
import { pendingWrite } from "./pending-writes";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** Links are made to existing accounts only. */
const accountExists = "attribute_exists(PK)";
/** The uniqueness claim of an external account is free, or already ours (re-linking is idempotent). */
const claimFreeOrOurs = "attribute_not_exists(PK) OR #owner = :sub";
/** Only a link that exists is removed, so a second unlink says "not linked". */
const linkExists = "attribute_exists(PK)";
/** A state never overwrites another (ids are random; this makes a clash loud, not silent). */
const stateIsNew = "attribute_not_exists(PK)";
/** A state is taken once, and not after it expired (TTL deletion lags). */
const stateUnexpired = "attribute_exists(PK) AND #expiresAt > :now";
/** A refresh lease is taken on the revision that was read, and only when no live lease is held. */
const leaseFree = "#revision = :seen AND (attribute_not_exists(#leaseUntil) OR #leaseUntil < :now)";
/** Only the lease holder writes the refreshed tokens or gives the lease back. */
const leaseOurs = "#leaseId = :mine";

type TransactItems = NonNullable<TransactWriteCommandInput["TransactItems"]>;

function toLink(item: Record<string, unknown>): FederatedLink {
  return {
    sid: item.sid as string,
    fpType: item.fpType as string,
    fpName: item.fpName as string,
    ...(typeof item.userName === "string" && { userName: item.userName }),
  };
}

function toTokens(item: Record<string, unknown>): StoredTokens {
  return {
    sub: item.sub as string,
    fpType: item.fpType as string,
    fpName: item.fpName as string,
    sid: item.sid as string,
    accessToken: item.accessToken as string,
    ...(typeof item.refreshToken === "string" && { refreshToken: item.refreshToken }),
    expiresOn: item.expiresOn as number,
    revision: item.revision as string,
    ...(typeof item.leaseUntil === "number" && { leaseUntil: item.leaseUntil }),
  };
}

/** Links to external accounts, their uniqueness claims, stored provider tokens and bind states. */
export function createFederationStore({ client, tableName }: StoreDeps): FederationRepository {
  const tokenKey = (t: Pick<StoredTokens, "sub" | "fpType" | "fpName" | "sid">) =>
    keys.federatedToken(t.sub, t.fpType, t.fpName, t.sid);

  /** The claim (free or ours), the link and the tokens; the caller adds what the account must be. */
  function linkWrites(link: NewLink, now: number): TransactItems {
    const { sub, fpType, fpName, sid } = link;
    const fields: Record<string, unknown> = {
      fpType,
      fpName,
      sid,
      sub,
      entity: ENTITY.federatedLink,
      schemaVersion: SCHEMA_VERSION,
      updatedAt: now,
      ...(link.userName !== undefined && { userName: link.userName }),
    };
    const names: Record<string, string> = { "#linkedAt": "linkedAt" };
    const values: Record<string, unknown> = { ":now": now };
    const set = ["#linkedAt = if_not_exists(#linkedAt, :now)"];
    for (const [i, [name, value]] of Object.entries(fields).entries()) {
      names[`#f${i}`] = name;
      values[`:f${i}`] = value;
      set.push(`#f${i} = :f${i}`);
    }
    const items: TransactItems = [
      {
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.uniqueFederatedAccount, keys.uniqueFederatedAccount(fpType, fpName, sid), {
            owner: sub,
          }),
          ConditionExpression: claimFreeOrOurs,
          ExpressionAttributeNames: { "#owner": "owner" },
          ExpressionAttributeValues: { ":sub": sub },
        },
      },
      {
        Update: {
          TableName: tableName,
          Key: keys.federatedLink(sub, fpType, fpName, sid),
          UpdateExpression: `SET ${set.join(", ")}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
    ];
    if (link.tokens) {
      items.push({
        Put: {
          TableName: tableName,
          // A fresh revision: a refresh leased on the replaced tokens can no longer land.
          Item: itemOf(ENTITY.federatedToken, tokenKey(link), {
            sub,
            fpType,
            fpName,
            sid,
            ...link.tokens,
            revision: randomUUID(),
            updatedAt: now,
          }),
        },
      });
    }
    return items;
  }

  /** The items of one partition whose sort key starts with a prefix (strongly consistent). */
  function itemsWithPrefix(pk: string, skPrefix: string): Promise<Record<string, unknown>[]> {
    return queryAll(client, {
      TableName: tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
      ExpressionAttributeValues: { ":pk": pk, ":prefix": skPrefix },
      ConsistentRead: true,
    });
  }

  return {
    async listLinks(sub: string): Promise<FederatedLink[]> {
      return (await itemsWithPrefix(keys.userProfile(sub).PK, keys.federatedLinksPrefix)).map(toLink);
    },

    /** The links and whether the account exists, in one Query of its partition. */
    async linksOfAccount(sub: string): Promise<{ links: FederatedLink[]; accountExists: boolean }> {
      const prefix = keys.federatedLinksPrefix;
      const read = await readUserPartition(client, tableName, sub, [prefix], true);
      return { links: (read.byPrefix.get(prefix) ?? []).map(toLink), accountExists: read.record !== undefined };
    },

    /**
     * Links in one transaction: the account must exist, the external account's claim
     * must be free or ours, the link is created or updated (an omitted userName keeps
     * the stored one), and tokens, when given, replace the stored ones.
     */
    async link(link: NewLink, now: number): Promise<void> {
      const items: TransactItems = [
        {
          ConditionCheck: { TableName: tableName, Key: keys.userProfile(link.sub), ConditionExpression: accountExists },
        },
        ...linkWrites(link, now),
      ];
      try {
        await transactWrite(client, items);
      } catch (error) {
        const failed = failedConditions(error);
        if (failed?.includes(0)) throw new AccountNotFoundError(link.sub);
        if (failed?.includes(1)) throw new FederatedAccountTakenError();
        throw error;
      }
    },

    newAccountLinkItems: (link, now) => linkWrites(link, now).map(pendingWrite),

    /** Removes the link, its claim and its stored tokens; false when there was no such link. */
    async unlink(sub: string, fpType: string, fpName: string, sid: string): Promise<boolean> {
      try {
        await transactWrite(client, [
          {
            Delete: {
              TableName: tableName,
              Key: keys.federatedLink(sub, fpType, fpName, sid),
              ConditionExpression: linkExists,
            },
          },
          {
            Delete: {
              TableName: tableName,
              Key: keys.uniqueFederatedAccount(fpType, fpName, sid),
              // Never release a claim another account holds.
              ConditionExpression: "attribute_not_exists(PK) OR #owner = :sub",
              ExpressionAttributeNames: { "#owner": "owner" },
              ExpressionAttributeValues: { ":sub": sub },
            },
          },
          { Delete: { TableName: tableName, Key: keys.federatedToken(sub, fpType, fpName, sid) } },
        ]);
        return true;
      } catch (error) {
        if (failedConditions(error)?.includes(0)) return false;
        throw error;
      }
    },

    /** Every stored token record of the account at one provider (strongly consistent). */
    async tokens(sub: string, fpType: string, fpName: string): Promise<StoredTokens[]> {
      return (await itemsWithPrefix(keys.userProfile(sub).PK, keys.federatedTokensPrefix(fpType, fpName))).map(
        toTokens,
      );
    },

    async tokensOf(record: Pick<StoredTokens, "sub" | "fpType" | "fpName" | "sid">): Promise<StoredTokens | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: tokenKey(record), ConsistentRead: true }),
      );
      return Item ? toTokens(Item) : undefined;
    },

    /** True when this caller now holds the refresh lease of the revision it read. */
    async takeRefreshLease(record: StoredTokens, leaseId: string, leaseUntil: number, now: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: tokenKey(record),
            UpdateExpression: "SET #leaseId = :mine, #leaseUntil = :until",
            ConditionExpression: leaseFree,
            ExpressionAttributeNames: { "#leaseId": "leaseId", "#leaseUntil": "leaseUntil", "#revision": "revision" },
            ExpressionAttributeValues: {
              ":mine": leaseId,
              ":until": leaseUntil,
              ":seen": record.revision,
              ":now": now,
            },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    /** Writes refreshed tokens and ends the lease; false when the lease was lost meanwhile. */
    async saveRefreshed(record: StoredTokens, leaseId: string, tokens: SealedTokens, now: number): Promise<boolean> {
      const values: Record<string, unknown> = {
        ":access": tokens.accessToken,
        ":expiresOn": tokens.expiresOn,
        ":revision": randomUUID(),
        ":now": now,
        ":mine": leaseId,
      };
      const names: Record<string, string> = {
        "#access": "accessToken",
        "#expiresOn": "expiresOn",
        "#revision": "revision",
        "#updatedAt": "updatedAt",
        "#leaseId": "leaseId",
        "#leaseUntil": "leaseUntil",
      };
      let expression = "SET #access = :access, #expiresOn = :expiresOn, #revision = :revision, #updatedAt = :now";
      // Providers that do not rotate refresh tokens send none: the stored one stays.
      if (tokens.refreshToken !== undefined) {
        expression += ", #refresh = :refresh";
        names["#refresh"] = "refreshToken";
        values[":refresh"] = tokens.refreshToken;
      }
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: tokenKey(record),
            UpdateExpression: `${expression} REMOVE #leaseId, #leaseUntil`,
            ConditionExpression: leaseOurs,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    /** Gives the lease back without a change (the provider could not be reached). */
    async releaseLease(record: StoredTokens, leaseId: string): Promise<void> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: tokenKey(record),
            UpdateExpression: "REMOVE #leaseId, #leaseUntil",
            ConditionExpression: leaseOurs,
            ExpressionAttributeNames: { "#leaseId": "leaseId", "#leaseUntil": "leaseUntil" },
            ExpressionAttributeValues: { ":mine": leaseId },
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },

    /** Forgets tokens the provider refused to refresh; only the lease holder may. */
    async dropTokens(record: StoredTokens, leaseId: string): Promise<void> {
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: tokenKey(record),
            ConditionExpression: leaseOurs,
            ExpressionAttributeNames: { "#leaseId": "leaseId" },
            ExpressionAttributeValues: { ":mine": leaseId },
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    },

    async ownerOf(fpType: string, fpName: string, sid: string): Promise<string | undefined> {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: keys.uniqueFederatedAccount(fpType, fpName, sid) }),
      );
      return Item?.owner as string | undefined;
    },

    async saveState(state: BindState): Promise<void> {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: itemOf(ENTITY.federationState, keys.federationState(state.id), { ...state }),
          ConditionExpression: stateIsNew,
        }),
      );
    },

    /** Takes a state once: deleted as it is read; undefined when unknown, used or expired. */
    async takeState(id: string, now: number): Promise<BindState | undefined> {
      try {
        const { Attributes } = await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: keys.federationState(id),
            ConditionExpression: stateUnexpired,
            ExpressionAttributeNames: { "#expiresAt": "expiresAt" },
            ExpressionAttributeValues: { ":now": now },
            ReturnValues: "ALL_OLD",
          }),
        );
        if (!Attributes) return undefined;
        const { PK: _pk, SK: _sk, entity: _entity, schemaVersion: _version, ...state } = Attributes;
        return state as BindState;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return undefined;
        throw error;
      }
    },
  };
}
