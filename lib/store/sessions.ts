import { DeleteCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Account } from "../domain/accounts/account";
import type { DeviceRecord } from "../domain/devices/device";
import type { SessionRecord, SessionRepository } from "../domain/sessions/ports";
import type { PendingWrite, Prefetch } from "../domain/unit-of-work";
import { toAccount } from "./account-items";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";
import { ENTITY, itemOf, keys, type TableKey } from "./keys";
import { queryAll } from "./paging";
import { readUserPartition } from "./partition-read";
import { batchPrefetch, pendingWrite, transactItems } from "./pending-writes";
import { deleteAndFinish } from "./transact";

export function createSessionStore({ client, tableName }: StoreDeps): SessionRepository {
  async function batchGet(requested: Array<{ PK: string; SK: string }>) {
    const found = await batchGetAll(client, tableName, requested);
    return (key: { PK: string; SK: string }) => found.find((i) => i.PK === key.PK && i.SK === key.SK);
  }

  return {
    /** The put of a new session, for the transaction that opens it. */
    putItem(session: SessionRecord): PendingWrite {
      return pendingWrite({
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.session, keys.session(session.sub, session.sid), session),
          // Session ids are random; a collision must fail rather than take over a session.
          ConditionExpression: "attribute_not_exists(PK)",
        },
      });
    },

    /** Opens a session on its own (tools that sign a user in without a login flow). */
    async open(session: SessionRecord): Promise<void> {
      await client.send(new PutCommand(transactItems([this.putItem(session)])[0].Put as never));
    },

    /** The put of a device record (new or seen again), for the login transaction. */
    deviceItem(device: DeviceRecord): PendingWrite {
      return pendingWrite({
        Put: { TableName: tableName, Item: itemOf(ENTITY.device, keys.device(device.subjectId, device.id), device) },
      });
    },

    /**
     * A user token's session and its account in one BatchGetItem: the session check of
     * every user-mode call, whose account read the route can reuse.
     */
    async sessionAndAccount<T = never>(
      sub: string,
      sid: string,
      /** What the route will read next: its keys ride in the same BatchGetItem. */
      prefetch?: Prefetch<T>,
    ): Promise<{ session?: SessionRecord; account?: Account; prefetched?: T }> {
      const found = await batchGetAll(client, tableName, [
        keys.session(sub, sid),
        keys.userProfile(sub),
        ...(prefetch ? batchPrefetch(prefetch).keys : []),
      ]);
      const find = (key: TableKey) => found.find((i) => i.PK === key.PK && i.SK === key.SK);
      const session = find(keys.session(sub, sid)) as SessionRecord | undefined;
      const profile = find(keys.userProfile(sub));
      return {
        session,
        account: profile ? toAccount(profile) : undefined,
        ...(prefetch && { prefetched: batchPrefetch(prefetch).read(found) }),
      };
    },

    /** A stored device, to recognise a returning one at login. */
    async device(sub: string, uaId: string): Promise<DeviceRecord | undefined> {
      const find = await batchGet([keys.device(sub, uaId)]);
      return find(keys.device(sub, uaId)) as DeviceRecord | undefined;
    },

    /**
     * Rotates a session's refresh token: only when the presented one is the current one,
     * so each refresh token works once. Returns the session, or why it did not rotate.
     */
    async rotateRefresh(
      sub: string,
      sid: string,
      presentedHash: string,
      nextHash: string,
      now: number,
    ): Promise<{ rotated: SessionRecord } | { refused: "unknown" | "reused" }> {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.session(sub, sid),
            UpdateExpression:
              "SET refreshHash = :next, refreshGeneration = refreshGeneration + :one, lastUsedAt = :now",
            // Only the current refresh token rotates, and only on a live session.
            ConditionExpression: "refreshHash = :presented AND expiresAt > :now",
            ExpressionAttributeValues: { ":next": nextHash, ":presented": presentedHash, ":one": 1, ":now": now },
            ReturnValues: "ALL_NEW",
          }),
        );
        return { rotated: Attributes as SessionRecord };
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
        const { session } = await this.sessionAndAccount(sub, sid);
        // Our own rotation, applied but its answer lost, so the SDK's retry was refused: not a reuse.
        if (session?.refreshHash === nextHash) return { rotated: session };
        return { refused: session ? "reused" : "unknown" };
      }
    },

    async listDevices(sub: string): Promise<DeviceRecord[]> {
      return (await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": keys.devicePrefix },
        ConsistentRead: true,
      })) as unknown as DeviceRecord[];
    },

    async listSessions(sub: string): Promise<SessionRecord[]> {
      return (await queryAll(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
        ExpressionAttributeValues: { ":pk": keys.userPartition(sub), ":prefix": keys.sessionPrefix },
        ProjectionExpression: "sid, #sub, uaId, clientId, expiresAt",
        ExpressionAttributeNames: { "#sub": "sub" },
        ConsistentRead: true,
      })) as unknown as SessionRecord[];
    },

    async endSession(sub: string, sid: string): Promise<void> {
      await client.send(new DeleteCommand({ TableName: tableName, Key: keys.session(sub, sid) }));
    },

    async confirmSignIn(sub: string, sid: string, now: number): Promise<boolean> {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.session(sub, sid),
            UpdateExpression: "SET authTime = :now",
            // A session ended meanwhile must stay ended, not come back as a bare item.
            ConditionExpression: "attribute_exists(PK)",
            ExpressionAttributeValues: { ":now": now },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionalCheckFailed(error)) return false;
        throw error;
      }
    },

    /** The devices and whether the account exists, in one Query of its partition. */
    async devicesOfAccount(sub: string): Promise<{ devices: DeviceRecord[]; accountExists: boolean }> {
      const read = await readUserPartition(client, tableName, sub, [keys.devicePrefix], true);
      const devices = (read.byPrefix.get(keys.devicePrefix) ?? []) as unknown as DeviceRecord[];
      return { devices, accountExists: read.record !== undefined };
    },

    /**
     * Ends sessions and forgets devices: one Query reads the account's sessions, devices
     * and profile, one write deletes (nothing for an unknown account). `alsoWrite` names
     * items for the same write, given what is ended (a user-mode call's security event):
     * up to 100 items go in one transaction, more in batches (deletes are idempotent, so
     * a retry after a partial failure finishes the job). A token of an ended session
     * fails its session check at once.
     */
    async endSessionsAndDevices(
      sub: string,
      choose: { session: (s: SessionRecord) => boolean; device: (d: DeviceRecord) => boolean },
      alsoWrite: (ended: { sessions: number; devices: number }) => PendingWrite[] = () => [],
    ): Promise<{ sessions: number; devices: number; accountExists: boolean }> {
      const read = await readUserPartition(client, tableName, sub, [keys.sessionPrefix, keys.devicePrefix], true);
      if (!read.record) return { sessions: 0, devices: 0, accountExists: false };
      const sessions = (read.byPrefix.get(keys.sessionPrefix) ?? []) as unknown as SessionRecord[];
      const devices = (read.byPrefix.get(keys.devicePrefix) ?? []) as unknown as DeviceRecord[];
      const deletes = [
        ...sessions.filter(choose.session).map((s) => keys.session(sub, s.sid)),
        ...devices.filter(choose.device).map((d) => keys.device(sub, d.id)),
      ];
      const ended = {
        sessions: sessions.filter(choose.session).length,
        devices: devices.filter(choose.device).length,
      };
      await deleteAndFinish(client, tableName, deletes, transactItems(alsoWrite(ended)));
      return { ...ended, accountExists: true };
    },
  };
}
