import { GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { ORGANIZATION_PROFILE } from "../domain/groups/group";
import {
  type Invitation,
  type InvitationRefusal,
  InvitationRefusedError,
  type InvitationRepository,
} from "../domain/organizations/invitation-ports";
import type { PendingWrite } from "../domain/unit-of-work";
import type { StoreDeps } from "./client";
import { failedConditions } from "./errors";
import { ENTITY, itemOf, keys, type TableKey } from "./keys";
import { groupLive } from "./organizations";
import { pendingWrite, type TransactItem, transactItems } from "./pending-writes";
import { transactWrite } from "./transact";

// Conditions, named so each write says why it may fail.
/** One pending invitation per address: a guard left by an expired one (TTL not yet run) may be replaced. */
const noPendingInvitee = "attribute_not_exists(PK) OR expiresAt <= :now";
/** A fresh random id and digest: never overwrite. */
const absent = "attribute_not_exists(PK)";
/** Single use: consumed only while pending and unexpired. */
const stillPending = "attribute_exists(PK) AND attribute_not_exists(acceptedAt) AND expiresAt > :now";
/** Revoked only while not accepted. */
const notAccepted = "attribute_exists(PK) AND attribute_not_exists(acceptedAt)";
/** The address's guard is this invitation's, not a later one's. */
const guardOfThis = "attribute_not_exists(PK) OR invitationId = :id";

const partition = (orgId: string) => keys.groupPartition(ORGANIZATION_PROFILE, orgId);
const invitationKey = (orgId: string, id: string) => keys.orgInvitation(partition(orgId), id);
const inviteeKey = (orgId: string, email: string) => keys.orgInvitee(partition(orgId), email);

type Item = Record<string, unknown>;

/** The invitation's own fields, as both its item and its token item hold them. */
function bodyOf(invitation: Invitation) {
  return {
    invitationId: invitation.id,
    orgId: invitation.orgId,
    email: invitation.email,
    roles: invitation.roles,
    language: invitation.language,
    ...(invitation.invitedBy && { invitedBy: invitation.invitedBy }),
    createdAt: invitation.createdAt,
    expiresAt: invitation.expiresAt,
  };
}

function invitationOf(item: Item): Invitation {
  return {
    id: item.invitationId as string,
    orgId: item.orgId as string,
    email: item.email as string,
    roles: (item.roles as string[] | undefined) ?? [],
    language: item.language === "en" ? "en" : "ru",
    ...(typeof item.invitedBy === "string" && { invitedBy: item.invitedBy }),
    createdAt: Number(item.createdAt),
    expiresAt: Number(item.expiresAt),
    ...(typeof item.acceptedBy === "string" && { acceptedBy: item.acceptedBy }),
    ...(typeof item.acceptedAt === "number" && { acceptedAt: item.acceptedAt }),
  };
}

/**
 * Organization invitations (docs/organizations.md, Invitations): the invitation in the
 * organization's partition (listing is one Query), the address's guard beside it, and a
 * copy under its token's digest that lives only while it is pending (the link's one GetItem).
 */
export function createInvitationStore({ client, tableName }: StoreDeps): InvitationRepository {
  async function commit(labelled: Array<[TransactItem, InvitationRefusal]>, alsoWrite: PendingWrite[]) {
    try {
      await transactWrite(client, [...labelled.map(([item]) => item), ...transactItems(alsoWrite)]);
    } catch (error) {
      const failed = failedConditions(error);
      const first = failed?.map((i) => labelled[i]?.[1]).find((reason) => reason !== undefined);
      if (first) throw new InvitationRefusedError(first);
      throw error;
    }
  }

  const tokenKey = (digest: string): TableKey => keys.invitationToken(digest);

  return {
    async create(invitation, tokenDigest, alsoWrite) {
      const body = bodyOf(invitation);
      const now = invitation.createdAt;
      await commit(
        [
          [
            {
              ConditionCheck: {
                TableName: tableName,
                Key: keys.group(ORGANIZATION_PROFILE, invitation.orgId),
                ConditionExpression: groupLive,
              },
            },
            "org",
          ],
          [
            {
              Put: {
                TableName: tableName,
                Item: itemOf(ENTITY.orgInvitee, inviteeKey(invitation.orgId, invitation.email), {
                  invitationId: invitation.id,
                  expiresAt: invitation.expiresAt,
                }),
                ConditionExpression: noPendingInvitee,
                ExpressionAttributeValues: { ":now": now },
              },
            },
            "pending",
          ],
          [
            {
              Put: {
                TableName: tableName,
                // The digest rides on the invitation so that revoking can remove the token item.
                Item: itemOf(ENTITY.orgInvitation, invitationKey(invitation.orgId, invitation.id), {
                  ...body,
                  tokenDigest,
                }),
                ConditionExpression: absent,
              },
            },
            "pending",
          ],
          [
            {
              Put: {
                TableName: tableName,
                Item: itemOf(ENTITY.invitationToken, tokenKey(tokenDigest), body),
                ConditionExpression: absent,
              },
            },
            "pending",
          ],
        ],
        alsoWrite,
      );
    },

    async byToken(tokenDigest) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: tokenKey(tokenDigest), ConsistentRead: true }),
      );
      return Item ? invitationOf(Item) : undefined;
    },

    async get(orgId, id) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: invitationKey(orgId, id), ConsistentRead: true }),
      );
      return Item ? invitationOf(Item) : undefined;
    },

    /** One Query of the organization's invitations from the cursor; accepted and expired ones filtered out. */
    async pending(orgId, page, now) {
      const invitations: Invitation[] = [];
      let startKey: Item | undefined = page.after ? { ...invitationKey(orgId, page.after) } : undefined;
      let more = false;
      do {
        const answer = await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
            FilterExpression: "attribute_not_exists(acceptedAt) AND expiresAt > :now",
            ExpressionAttributeValues: { ":pk": partition(orgId), ":prefix": keys.orgInvitationPrefix, ":now": now },
            ExclusiveStartKey: startKey,
            Limit: page.limit - invitations.length,
            ConsistentRead: true,
          }),
        );
        invitations.push(...(answer.Items ?? []).map(invitationOf));
        startKey = answer.LastEvaluatedKey;
        more = startKey !== undefined;
      } while (more && invitations.length < page.limit);
      const last = invitations.at(-1);
      return { invitations, ...(more && last && { next: last.id }) };
    },

    async revoke(invitation, alsoWrite) {
      const key = invitationKey(invitation.orgId, invitation.id);
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: key, ProjectionExpression: "tokenDigest", ConsistentRead: true }),
      );
      const digest = Item?.tokenDigest;
      if (typeof digest !== "string") throw new InvitationRefusedError("gone");
      await commit(
        [
          [{ Delete: { TableName: tableName, Key: key, ConditionExpression: notAccepted } }, "gone"],
          [
            {
              Delete: {
                TableName: tableName,
                Key: inviteeKey(invitation.orgId, invitation.email),
                ConditionExpression: guardOfThis,
                ExpressionAttributeValues: { ":id": invitation.id },
              },
            },
            "gone",
          ],
          [{ Delete: { TableName: tableName, Key: tokenKey(digest) } }, "gone"],
        ],
        alsoWrite,
      );
    },

    consumeWrites(invitation, tokenDigest, sub, now) {
      return [
        pendingWrite({
          Update: {
            TableName: tableName,
            Key: invitationKey(invitation.orgId, invitation.id),
            UpdateExpression: "SET acceptedBy = :sub, acceptedAt = :now",
            ConditionExpression: stillPending,
            ExpressionAttributeValues: { ":sub": sub, ":now": now },
          },
        }),
        pendingWrite({
          Delete: {
            TableName: tableName,
            Key: inviteeKey(invitation.orgId, invitation.email),
            ConditionExpression: guardOfThis,
            ExpressionAttributeValues: { ":id": invitation.id },
          },
        }),
        pendingWrite({ Delete: { TableName: tableName, Key: keys.invitationToken(tokenDigest) } }),
      ];
    },
  };
}
