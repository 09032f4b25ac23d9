import { describe, expect, it } from "vitest";
import { config } from "../../../lib/config";
import { services } from "../../../lib/container";
import { documentClient } from "../../../lib/document-client";
import { AccountChangedError } from "../../../lib/domain/accounts/ports";
import { foldName } from "../../../lib/domain/search/fold";
import { createAccountStore } from "../../../lib/store/accounts";
import { roundTripCount } from "../../../lib/store/client";
import { keys } from "../../../lib/store/keys";
import { queryAll } from "../../../lib/store/paging";
import { seedAccount, uniqueId } from "../../support/fixtures";
import { storedItem } from "../../support/stored";

/** The accounts the name index lists under one value. */
async function indexed(attribute: string, value: string): Promise<string[]> {
  const items = await queryAll(documentClient(), {
    TableName: config().tableName,
    KeyConditionExpression: "PK = :pk",
    ExpressionAttributeValues: { ":pk": keys.nameIndexPartition(attribute, foldName(value)) },
    ConsistentRead: true,
  });
  return items.map((item) => item.sub as string);
}

describe("name index kept by the account store", () => {
  it("when an account is created, each name has an index item in the same transaction", async () => {
    const account = await seedAccount({ family_name: uniqueId("Fam"), given_name: "Öskar", middle_name: undefined });
    expect(await indexed("family_name", account.family_name as string)).toEqual([account.sub]);
    expect(await indexed("given_name", "öSKAR")).toContain(account.sub);
    expect(
      await storedItem(keys.nameIndex("family_name", foldName(account.family_name as string), account.sub)),
    ).toMatchObject({ entity: "name-index", sub: account.sub, attribute: "family_name" });
  });

  it("when a name changes, the old index item goes and the new one comes, in two round trips", async () => {
    const old = uniqueId("Old");
    const next = uniqueId("New");
    const account = await seedAccount({ family_name: old });
    const before = roundTripCount();
    const changed = await services().accounts.update(account.sub, {
      set: { family_name: next },
      remove: ["middle_name"],
    });
    expect(roundTripCount() - before).toBe(2);
    expect(changed.family_name).toBe(next);
    expect(changed.middle_name).toBeUndefined();
    expect(await indexed("family_name", old)).toEqual([]);
    expect(await indexed("family_name", next)).toEqual([account.sub]);
    expect(await indexed("middle_name", "Ivanovich")).not.toContain(account.sub);
  });

  it("when only the case of a name changes, its index item stays as it is", async () => {
    const name = uniqueId("case");
    const account = await seedAccount({ family_name: name });
    await services().accounts.update(account.sub, { set: { family_name: name.toUpperCase() }, remove: [] });
    expect(await indexed("family_name", name)).toEqual([account.sub]);
    expect((await services().accounts.get(account.sub))?.family_name).toBe(name.toUpperCase());
  });

  it("when only the lock changes, it is still one UpdateItem", async () => {
    const account = await seedAccount();
    const before = roundTripCount();
    await services().accounts.update(account.sub, { set: { locked: true }, remove: [] });
    expect(roundTripCount() - before).toBe(1);
  });

  it("when several changes of one name race, exactly the stored name is indexed", async () => {
    const account = await seedAccount({ family_name: uniqueId("Start") });
    const names = Array.from({ length: 5 }, () => uniqueId("Race"));
    const results = await Promise.allSettled(
      names.map((family_name) => services().accounts.update(account.sub, { set: { family_name }, remove: [] })),
    );
    // Each either applied or gave up after reading again; none leaves a stale item.
    for (const result of results) {
      if (result.status === "rejected") expect(result.reason).toBeInstanceOf(AccountChangedError);
    }
    expect(results.some((r) => r.status === "fulfilled")).toBe(true);
    const stored = (await services().accounts.get(account.sub))?.family_name as string;
    expect(names).toContain(stored);
    for (const name of [account.family_name as string, ...names]) {
      expect(await indexed("family_name", name)).toEqual(name === stored ? [account.sub] : []);
    }
  });

  it("when the caller's copy of the account is stale, the change is refused and nothing moves", async () => {
    const account = await seedAccount({ family_name: uniqueId("Stale") });
    await services().accounts.update(account.sub, { set: { family_name: "Fresh" }, remove: [] });
    await expect(
      services().accounts.update(account.sub, { set: { family_name: "Late" }, remove: [] }, account),
    ).rejects.toBeInstanceOf(AccountChangedError);
    expect((await services().accounts.get(account.sub))?.family_name).toBe("Fresh");
    expect(await indexed("family_name", "Late")).toEqual([]);
  });

  it("when names are not in search.indexedAttributes, no index item is written and a name change is one round trip", async () => {
    const store = createAccountStore({
      client: documentClient(),
      tableName: config().tableName,
      indexedNames: ["sub", "email"],
    });
    const now = Math.floor(Date.now() / 1000);
    const sub = uniqueId("plain-");
    const family = uniqueId("Plain");
    await store.create({ sub, family_name: family, locked: false, createdAt: now, updatedAt: now });
    expect(await indexed("family_name", family)).toEqual([]);
    const before = roundTripCount();
    await store.update(sub, { set: { family_name: `${family}2` }, remove: [] });
    expect(roundTripCount() - before).toBe(1);
  });
});
