import { afterEach, describe, expect, it } from "vitest";
import { keys } from "../../lib/store/keys";
import { createClient, invoke, sampleEvent, seedAccount, systemBearer, userBearer } from "../support/fixtures";
import { signedIn } from "../support/login";
import { useSettings } from "../support/oauth-provider";
import { storedItem, storedItems } from "../support/stored";

/** DELETE /svc/api/v3/users/{subjectId}: an operator's deletion, at once (docs/interface.md). */

async function deleteUser(sub: string, authorization: string) {
  const event = await sampleEvent("events/users/delete-user-system.json");
  event.pathParameters = { subjectId: sub };
  event.rawPath = `/svc/api/v3/users/${sub}`;
  event.headers.authorization = authorization;
  return invoke("users", event);
}

describe("DELETE /svc/api/v3/users/{subjectId}", () => {
  afterEach(() => useSettings({}));

  it("when a system token deletes an account, everything of it goes at once, even with a grace period set, and one event stays", async () => {
    useSettings({ accountDeletion: { graceDays: 30 } });
    const account = await seedAccount({}, "a long enough password 1");
    const client = await createClient(["svc_api_user"]);
    const tokens = await signedIn(
      { clientId: client.clientId, secret: client.secret as string },
      { username: account.sub, password: "a long enough password 1", scope: "svc_api_user" },
    );
    expect((await storedItems(account.sub, keys.sessionPrefix)).length).toBeGreaterThan(0);

    const answer = await deleteUser(account.sub, await systemBearer(["svc_api_sys_users_chg"]));
    expect(answer.statusCode).toBe(204);
    expect(await storedItem(keys.userProfile(account.sub))).toBeUndefined();
    expect(await storedItem(keys.passwordCredential(account.sub))).toBeUndefined();
    expect(await storedItems(account.sub, keys.sessionPrefix)).toEqual([]);
    const events = await storedItems(account.sub, "EVENT#");
    expect(events).toMatchObject([{ type: "account_delete", result: "ok", cId: "test-client" }]);

    // The token the account held stops at once: its session is gone.
    const read = await sampleEvent("events/users/get-user-user-mode.json");
    read.pathParameters = { subjectId: account.sub };
    read.rawPath = `/svc/api/v3/users/${account.sub}`;
    read.headers.authorization = `Bearer ${tokens.access_token}`;
    expect((await invoke("users", read)).statusCode).toBe(401);
  });

  it("when the account does not exist, it answers 404 unknown_user and writes nothing", async () => {
    const answer = await deleteUser("no-such-account-1", await systemBearer(["svc_api_sys_users_chg"]));
    expect(answer.statusCode).toBe(404);
    expect(answer.json).toMatchObject({ error: "unknown_user" });
    expect(await storedItems("no-such-account-1", "EVENT#")).toEqual([]);
    expect(await storedItem(keys.userProfile("no-such-account-1"))).toBeUndefined();
  });

  it("when the caller is a user, or lacks svc_api_sys_users_chg, it refuses and the account stays", async () => {
    const account = await seedAccount();
    const asUser = await deleteUser(account.sub, await userBearer(account.sub, ["svc_api_user_chg"]));
    expect(asUser.statusCode).toBe(401);
    const reader = await deleteUser(account.sub, await systemBearer(["svc_api_sys_users"]));
    expect(reader.statusCode).toBe(401);
    expect(reader.json).toMatchObject({ error: "bad_access_token" });
    expect(await storedItem(keys.userProfile(account.sub))).toBeDefined();
  });
});
