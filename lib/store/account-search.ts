import { GetCommand } from "@aws-sdk/lib-dynamodb";
import type { Account } from "../domain/accounts/account";
import type { AccountSearch } from "../domain/accounts/ports";
import { toAccount } from "./account-items";
import { batchGetAll } from "./batch";
import type { StoreDeps } from "./client";
import { keys } from "./keys";
import { queryPages } from "./paging";

/**
 * The lookups user search is made of (interface §4.7); none scans. E-mail and phone are
 * found through the uniqueness claims the account store keeps, names through the name
 * index items it keeps in the same transactions, sub through the key itself.
 */
export function createAccountSearchStore({ client, tableName }: StoreDeps): AccountSearch {
  return {
    /** The owner of a contact value (already in normal form): one GetItem. */
    async ownerOfContact(field: "email" | "phone_number", normalized: string): Promise<string | undefined> {
      const { Item } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: field === "email" ? keys.uniqueEmail(normalized) : keys.uniquePhone(normalized),
          ProjectionExpression: "#owner",
          ExpressionAttributeNames: { "#owner": "owner" },
          ConsistentRead: true,
        }),
      );
      return Item?.owner as string | undefined;
    },

    /** Accounts under one folded name value, at most `cap` (complete: false when there are more). */
    async subsWithName(attribute: string, folded: string, cap: number): Promise<{ subs: string[]; complete: boolean }> {
      const subs: string[] = [];
      for await (const page of queryPages(client, {
        TableName: tableName,
        KeyConditionExpression: "PK = :pk",
        ExpressionAttributeValues: { ":pk": keys.nameIndexPartition(attribute, folded) },
        ProjectionExpression: "#sub",
        ExpressionAttributeNames: { "#sub": "sub" },
        ConsistentRead: true,
      })) {
        subs.push(...page.map((item) => item.sub as string));
        if (subs.length > cap) return { subs: subs.slice(0, cap), complete: false };
      }
      return { subs, complete: true };
    },

    /** The accounts of these subs that exist, strongly consistent (BatchGetItem). */
    async accounts(subs: string[]): Promise<Account[]> {
      const items = await batchGetAll(client, tableName, subs.map(keys.userProfile));
      return items.map(toAccount);
    },
  };
}
