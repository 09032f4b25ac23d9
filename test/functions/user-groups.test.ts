import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import { groupInstanceId } from "../../lib/domain/groups/group";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { expiredToken } from "../support/forged-tokens";
import { request } from "../support/requests";
import { spentBy } from "../support/round-trips";
import { storedItem, storedItems } from "../support/stored";

/** GET /svc/api/v3/users/{subjectId}/groups: the groups an account belongs to (docs/interface.md §4.8a). */

interface Listed {
  id: string;
  profile: string;
  addedAt: number;
  group?: Record<string, unknown>;
}
interface Page {
  groups: Listed[];
  next?: string;
}

async function newGroup(profile: string, attributes: Record<string, unknown> = {}) {
  const id = uniqueId("grp-");
  const created = await request("groups", "events/groups/create-group.json", {
    body: { profile, id, ...attributes },
  });
  expect(created.statusCode).toBe(201);
  return id;
}

async function addMember(profile: string, id: string, sub: string) {
  const added = await request("groups", "events/groups/members-add.json", {
    params: { groupId: id },
    query: { profile },
    body: [{ subjectId: sub }],
  });
  expect(added.statusCode).toBe(200);
}

function groupsOf(sub: string, query: Record<string, string> = {}, authorization?: string) {
  return request("groups", "events/groups/user-groups-system.json", {
    params: { subjectId: sub },
    query,
    ...(authorization && { authorization }),
  });
}

const pageOf = (response: { json: unknown }) => response.json as Page;

describe("GET /svc/api/v3/users/{subjectId}/groups", () => {
  it("when the account belongs to groups of two profiles, it lists each with its profile and when it was added, in one read", async () => {
    const account = await seedAccount();
    const org = await newGroup("org", { name: "Acme Ltd" });
    const team = await newGroup("team");
    const before = Math.floor(Date.now() / 1000);
    await addMember("org", org, account.sub);
    await addMember("team", team, account.sub);

    const { result, reads, writes } = await spentBy(() => groupsOf(account.sub));
    expect(result.statusCode).toBe(200);
    const page = pageOf(result);
    expect(page).toEqual({
      groups: [
        { id: org, profile: "org", addedAt: expect.any(Number) },
        { id: team, profile: "team", addedAt: expect.any(Number) },
      ],
    });
    for (const listed of page.groups) expect(listed.addedAt).toBeGreaterThanOrEqual(before);
    // The answer is what the mirrors in the account's partition hold.
    expect(await storedItem(keys.membership(account.sub, "org", org))).toMatchObject({
      profile: "org",
      groupId: org,
      addedAt: page.groups[0].addedAt,
    });
    // One Query of the account's partition; nothing written in system mode.
    expect(reads).toBe(1);
    expect(writes).toBe(0);
  });

  it("when filtered by profile, only that profile's groups come, and a profile that is a prefix of another does not match it", async () => {
    const account = await seedAccount();
    const org = await newGroup("org");
    const orgs = await newGroup("orgs");
    await addMember("org", org, account.sub);
    await addMember("orgs", orgs, account.sub);
    expect(pageOf(await groupsOf(account.sub, { profile: "org" })).groups.map((g) => g.id)).toEqual([org]);
    expect(pageOf(await groupsOf(account.sub, { profile: "orgs" })).groups.map((g) => g.id)).toEqual([orgs]);
    expect(pageOf(await groupsOf(account.sub, { profile: "nothing" }))).toEqual({ groups: [] });
  });

  it("when expand=true, each group comes as GET /svc/api/v2/grps/{id}?expand=true answers it, read in one BatchGetItem", async () => {
    const account = await seedAccount();
    const named = await newGroup("org", { name: "Acme Ltd", inn: "7701234567", employees: 120, verified: true });
    const bare = await newGroup("org");
    await addMember("org", named, account.sub);
    await addMember("org", bare, account.sub);
    const read = await request("groups", "events/groups/get-group.json", {
      params: { groupId: named },
      query: { profile: "org", expand: "true" },
    });

    const { result, reads } = await spentBy(() => groupsOf(account.sub, { expand: "true" }));
    expect(result.statusCode).toBe(200);
    const byId = new Map(pageOf(result).groups.map((g) => [g.id, g]));
    expect(byId.get(named)?.group).toEqual(read.json);
    expect(byId.get(named)?.group).toEqual({
      id: named,
      profile: "org",
      name: "Acme Ltd",
      instanceId: groupInstanceId("org", named),
      inn: "7701234567",
      employees: 120,
      verified: true,
    });
    expect(byId.get(bare)?.group).toEqual({ id: bare, profile: "org", instanceId: groupInstanceId("org", bare) });
    // The memberships' Query, then both groups in one BatchGetItem.
    expect(reads).toBe(2);
  });

  it("when an account belongs to more groups than a page holds, they come a page at a time, each page's next leading on", async () => {
    const account = await seedAccount();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await newGroup("org"));
    for (const id of ids) await addMember("org", id, account.sub);
    ids.sort();

    const listed: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { result, reads } = await spentBy(() =>
        groupsOf(account.sub, { profile: "org", limit: "2", ...(cursor && { cursor }) }),
      );
      expect(result.statusCode).toBe(200);
      expect(reads).toBe(1);
      const page = pageOf(result);
      listed.push(...page.groups.map((g) => g.id));
      cursor = page.next;
      pages += 1;
      if (pages < 3) expect(page.groups).toHaveLength(2);
    } while (cursor);
    expect(pages).toBe(3);
    expect(listed).toEqual(ids);
    // Exactly a page's worth needs no next.
    expect(pageOf(await groupsOf(account.sub, { limit: "5" })).next).toBeUndefined();
    // A cursor of one profile's listing does not start another's.
    const first = pageOf(await groupsOf(account.sub, { limit: "1" }));
    const other = await groupsOf(account.sub, { profile: "team", cursor: first.next as string });
    expect(other.statusCode).toBe(400);
    expect(other.json).toMatchObject({ type: "input_error", error: "wrong_value", pos: "cursor" });
  });

  it("when limit or cursor is malformed, it answers 400 naming it, never a 500", async () => {
    const account = await seedAccount();
    const garbage = Buffer.from("org#bad id#x").toString("base64url");
    for (const [name, value] of [
      ["limit", "0"],
      ["limit", "1001"],
      ["limit", "ten"],
      ["cursor", "not a cursor!"],
      ["cursor", garbage],
      ["cursor", Buffer.from("no-separator").toString("base64url")],
      ["profile", "bad#profile"],
      ["expand", "yes"],
    ]) {
      const response = await groupsOf(account.sub, { [name]: value });
      expect(response.statusCode, `${name}=${value}`).toBe(400);
      expect(response.json).toMatchObject({ type: "input_error" });
      expect(JSON.stringify(response.json)).toContain(name);
    }
  });

  it("when the account belongs to no group it answers an empty list; an unknown account is 404 unknown_user", async () => {
    const account = await seedAccount();
    const { result, reads } = await spentBy(() => groupsOf(account.sub));
    expect(result.statusCode).toBe(200);
    expect(result.json).toEqual({ groups: [] });
    // An empty page reads the account too, to tell it from no account.
    expect(reads).toBe(2);
    const unknown = await groupsOf("no-such-account-1");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json).toEqual({
      type: "process_error",
      error: "unknown_user",
      desc: "no account has this identifier",
      params: { userId: "no-such-account-1" },
    });
  });

  it("when a group is deleted, or the account removed from one, it is no longer listed", async () => {
    const account = await seedAccount();
    const kept = await newGroup("org");
    const left = await newGroup("org");
    const deleted = await newGroup("org");
    for (const id of [kept, left, deleted]) await addMember("org", id, account.sub);
    const removed = await request("groups", "events/groups/members-rm.json", {
      params: { groupId: left },
      query: { profile: "org" },
      body: [{ subjectId: account.sub }],
    });
    expect(removed.statusCode).toBe(200);
    const gone = await request("groups", "events/groups/delete-group.json", {
      params: { groupId: deleted },
      query: { profile: "org" },
    });
    expect(gone.statusCode).toBe(204);
    // The deletion took the mirror in the account's partition with the member.
    expect(await storedItem(keys.membership(account.sub, "org", deleted))).toBeUndefined();
    expect((await storedItems(account.sub, keys.membershipPrefix)).map((item) => item.groupId)).toEqual([kept]);
    expect(pageOf(await groupsOf(account.sub)).groups.map((g) => g.id)).toEqual([kept]);
    expect(pageOf(await groupsOf(account.sub, { expand: "true" })).groups.map((g) => g.id)).toEqual([kept]);
  });

  it("when a group's deletion was interrupted, expand leaves it out until a repeated DELETE removes the mirror", async () => {
    const account = await seedAccount();
    const id = await newGroup("org");
    await addMember("org", id, account.sub);
    // What a crashed DELETE leaves: the mark on the record, the member and its mirror still there.
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.group("org", id),
        UpdateExpression: "SET deleting = :t",
        ExpressionAttributeValues: { ":t": true },
      }),
    );
    expect(pageOf(await groupsOf(account.sub)).groups.map((g) => g.id)).toEqual([id]);
    expect(pageOf(await groupsOf(account.sub, { expand: "true" }))).toEqual({ groups: [] });
    const finished = await request("groups", "events/groups/delete-group.json", {
      params: { groupId: id },
      query: { profile: "org" },
    });
    expect(finished.statusCode).toBe(204);
    expect(pageOf(await groupsOf(account.sub))).toEqual({ groups: [] });
  });

  it("when the token lacks svc_groups, or expired, it answers 401 bad_access_token", async () => {
    const account = await seedAccount();
    const wrong = await groupsOf(account.sub, {}, await systemBearer(["svc_api_sys_users"]));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json).toMatchObject({ type: "security_error", error: "bad_access_token", desc: "insufficient_scope" });
    const expired = await groupsOf(account.sub, {}, `Bearer ${await expiredToken("svc_groups")}`);
    expect(expired.statusCode).toBe(401);
    expect(expired.json).toMatchObject({ error: "bad_access_token", desc: "expired_access_token" });
  });

  it("when a user reads with svc_api_user, they get their own groups, and another account's are refused", async () => {
    const owner = await seedAccount();
    const stranger = await seedAccount();
    const org = await newGroup("org");
    await addMember("org", org, owner.sub);
    await addMember("org", await newGroup("org"), stranger.sub);

    const authorization = await userBearer(owner.sub, ["svc_api_user"]);
    const {
      result: own,
      reads,
      writes,
    } = await spentBy(() =>
      request("groups", "events/groups/user-groups-user-mode.json", {
        params: { subjectId: owner.sub },
        authorization,
      }),
    );
    expect(own.statusCode).toBe(200);
    // The session check (with the account), the memberships' Query; the user-mode security event.
    expect([reads, writes]).toEqual([2, 1]);
    const events = await storedItems(owner.sub, "EVENT#");
    expect(events.at(-1)).toMatchObject({ type: "groups.of-user", result: "ok" });
    expect(pageOf(own).groups.map((g) => g.id)).toEqual([org]);

    const other = await request("groups", "events/groups/user-groups-user-mode.json", {
      params: { subjectId: stranger.sub },
      authorization: await userBearer(owner.sub, ["svc_api_user"]),
    });
    expect(other.statusCode).toBe(401);
    expect(other.json).toMatchObject({ error: "bad_access_token", desc: "wrong_subject" });
    expect(JSON.stringify(other.json)).not.toContain(stranger.sub);

    // A user token without svc_api_user, and a user's svc_groups (a system permission), open nothing.
    for (const scopes of [["svc_api_uapps"], ["svc_groups"]]) {
      const refused = await request("groups", "events/groups/user-groups-user-mode.json", {
        params: { subjectId: owner.sub },
        authorization: await userBearer(owner.sub, scopes),
      });
      expect(refused.statusCode).toBe(401);
    }
  });
});
