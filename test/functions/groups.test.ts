import { DeleteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { groupInstanceId } from "../../lib/domain/groups/group";
import { roundTripCount } from "../../lib/store/client";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { expiredToken } from "../support/forged-tokens";
import { basicCredentials, request } from "../support/requests";
import { spentBy } from "../support/round-trips";
import { storedItem } from "../support/stored";

const PROFILE = "org";

async function newGroup(attributes: Record<string, unknown> = {}) {
  const id = uniqueId("grp-");
  const response = await request("groups", "events/groups/create-group.json", {
    body: { profile: PROFILE, id, name: `Group ${id}`, ...attributes },
  });
  expect(response.statusCode).toBe(201);
  return id;
}

function getGroup(id: string, query: Record<string, string> = { profile: PROFILE }) {
  return request("groups", "events/groups/get-group.json", { params: { groupId: id }, query });
}

function listGroups(query: Record<string, string>) {
  return request("groups", "events/groups/list-groups.json", { query: { profile: PROFILE, ...query } });
}

function changeGroup(id: string, body: unknown, profile = PROFILE) {
  return request("groups", "events/groups/change-group.json", { params: { groupId: id }, query: { profile }, body });
}

function deleteGroup(id: string, profile = PROFILE) {
  return request("groups", "events/groups/delete-group.json", { params: { groupId: id }, query: { profile } });
}

function members(id: string, expand?: boolean, page: Record<string, string> = {}) {
  return request("groups", "events/groups/members.json", {
    params: { groupId: id },
    query: { profile: PROFILE, ...(expand !== undefined && { expand: String(expand) }), ...page },
  });
}

function addMembers(id: string, subs: string[], authorization?: string) {
  return request("groups", "events/groups/members-add.json", {
    params: { groupId: id },
    query: { profile: PROFILE },
    body: subs.map((subjectId) => ({ subjectId })),
    authorization,
  });
}

function removeMembers(id: string, subs: string[]) {
  return request("groups", "events/groups/members-rm.json", {
    params: { groupId: id },
    query: { profile: PROFILE },
    body: subs.map((subjectId) => ({ subjectId })),
  });
}

const record = (sub: string) => ({ instanceId: instanceIdOf(sub), storeId: "svc", subjectId: sub });

describe("group sample events", () => {
  it("when run in order, a group is created, read, listed, changed, filled, emptied and deleted", async () => {
    await seedAccount({ sub: "sample-user", family_name: "Ivanova", given_name: "Maria", middle_name: "Sergeevna" });
    await seedAccount({ sub: "sample-admin", family_name: "Smith", given_name: "John", middle_name: undefined });
    const created = await request("groups", "events/groups/create-group.json");
    expect(created.statusCode).toBe(201);
    const acme = {
      id: "acme",
      profile: "org",
      name: "Acme Ltd",
      instanceId: groupInstanceId("org", "acme"),
      inn: "7701234567",
      employees: 120,
      verified: true,
    };
    expect(created.json).toEqual(acme);
    expect((await request("groups", "events/groups/get-group.json")).json).toEqual(acme);
    expect((await request("groups", "events/groups/list-groups.json")).json).toEqual([acme]);
    const changed = await request("groups", "events/groups/change-group.json");
    expect(changed.json).toEqual({ ...acme, employees: 150, verified: undefined });
    expect(Object.keys(changed.json)).not.toContain("verified");
    const added = await request("groups", "events/groups/members-add.json");
    expect(added.json).toEqual([record("sample-user"), record("sample-admin")]);
    expect((await request("groups", "events/groups/members.json")).json).toEqual([
      { subjectId: "sample-admin", family_name: "Smith", given_name: "John" },
      { subjectId: "sample-user", family_name: "Ivanova", middle_name: "Sergeevna", given_name: "Maria" },
    ]);
    expect((await request("groups", "events/groups/members-rm.json")).json).toEqual([record("sample-admin")]);
    const deleted = await request("groups", "events/groups/delete-group.json");
    expect(deleted.statusCode).toBe(204);
    expect((await request("groups", "events/groups/get-group.json")).statusCode).toBe(404);
    expect(await storedItem(keys.membership("sample-user", "org", "acme"))).toBeUndefined();
  });
});

describe("GET /svc/api/v2/grps/{groupId} and POST /svc/api/v2/grps", () => {
  it("when read without expand it has the group fields; with expand every attribute; one round trip", async () => {
    const id = await newGroup({ inn: "1", size: 3, active: true });
    await getGroup(id);
    const before = roundTripCount();
    const plain = await getGroup(id);
    expect(roundTripCount() - before).toBe(1);
    expect(plain.json).toEqual({ id, profile: PROFILE, name: `Group ${id}`, instanceId: groupInstanceId(PROFILE, id) });
    const expanded = await getGroup(id, { profile: PROFILE, expand: "true" });
    expect(expanded.json).toEqual({ ...plain.json, inn: "1", size: 3, active: true });
  });

  it("when the group or its profile is unknown, it answers 404 group_not_found; no profile, 400", async () => {
    const id = await newGroup();
    const other = await getGroup(id, { profile: "dept" });
    expect(other.statusCode).toBe(404);
    expect(other.json).toEqual({
      errors: [
        {
          code: "group_not_found",
          desc: "no group has this id in this profile",
          params: { grpId: id, profile: "dept" },
        },
      ],
    });
    const noProfile = await getGroup(id, {});
    expect(noProfile.statusCode).toBe(400);
    expect(noProfile.json).toEqual({
      errors: [{ code: "validation_error", desc: "profile: profile is required", params: { field: "profile" } }],
    });
  });

  it("when an id is created twice in a profile, it answers 409; the same id in another profile is another group", async () => {
    const id = await newGroup();
    const again = await request("groups", "events/groups/create-group.json", { body: { profile: PROFILE, id } });
    expect(again.statusCode).toBe(409);
    expect(again.json).toEqual({
      errors: [
        {
          code: "group_already_exists",
          desc: "a group with this id already exists in this profile",
          params: { grpId: id, profile: PROFILE },
        },
      ],
    });
    expect((await getGroup(id)).json.name).toBe(`Group ${id}`);
    const elsewhere = await request("groups", "events/groups/create-group.json", { body: { profile: "dept", id } });
    expect(elsewhere.statusCode).toBe(201);
  });

  it("when the body is malformed, it answers 400 validation_error naming each field and creates nothing", async () => {
    const id = uniqueId("grp-");
    const cases: Array<[unknown, string[]]> = [
      [{ id }, ["profile"]],
      [{ profile: PROFILE }, ["id"]],
      [{ profile: "bad profile", id: "bad#id" }, ["id", "profile"]],
      [{ profile: PROFILE, id, nested: { a: 1 }, list: [1] }, ["list", "nested"]],
      [{ profile: PROFILE, id, "bad name": "x" }, ["bad name"]],
      [{ profile: PROFILE, id, long: "x".repeat(1025) }, ["long"]],
      [{ profile: PROFILE, id, name: "" }, ["name"]],
    ];
    for (const [body, fields] of cases) {
      const response = await request("groups", "events/groups/create-group.json", { body });
      expect({ body, status: response.statusCode }).toEqual({ body, status: 400 });
      const errors = response.json.errors as Array<{ code: string; params: { field: string } }>;
      expect(errors.every((e) => e.code === "validation_error")).toBe(true);
      expect(errors.map((e) => e.params.field).sort()).toEqual(fields);
    }
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, i]));
    const crowded = await request("groups", "events/groups/create-group.json", {
      body: { profile: PROFILE, id, ...tooMany },
    });
    expect(crowded.statusCode).toBe(400);
    expect((await getGroup(id)).statusCode).toBe(404);
  });

  it("when instanceId is sent back it is ignored", async () => {
    const id = uniqueId("grp-");
    const response = await request("groups", "events/groups/create-group.json", {
      body: { profile: PROFILE, id, instanceId: "whatever" },
    });
    expect(response.json.instanceId).toBe(groupInstanceId(PROFILE, id));
  });
});

describe("GET /svc/api/v2/grps (RQL)", () => {
  it("when filtered with and, or, eq and limit, it returns the matching groups in id order", async () => {
    const tag = uniqueId("t");
    const ids = [];
    for (const [city, size] of [
      ["Moscow", 10],
      ["Kazan", 20],
      ["Moscow", 30],
      ["Omsk", 10],
    ] as const) {
      ids.push(await newGroup({ tag, city, size }));
    }
    ids.sort();
    const idsOf = (r: { json: unknown }) => (r.json as Array<{ id: string }>).map((g) => g.id);
    const moscow = await listGroups({ rql: `and(eq(tag,string:${tag}),eq(city,string:Moscow))` });
    expect(moscow.statusCode).toBe(200);
    expect(idsOf(moscow).length).toBe(2);
    const either = await listGroups({ rql: `tag=string:${tag}&(city=string:Kazan|size=number:10)` });
    expect(idsOf(either).length).toBe(3);
    const limited = await listGroups({ rql: `eq(tag,string:${tag})&limit(2)` });
    expect(idsOf(limited)).toEqual(ids.slice(0, 2));
    const paged = await listGroups({ rql: `eq(tag,string:${tag})&limit(2,2)` });
    expect(idsOf(paged)).toEqual(ids.slice(2, 4));
    // The form clients of the original product send: limit as a term of the top-level and.
    expect(idsOf(await listGroups({ rql: `and(eq(tag,string:${tag}),limit(2))` }))).toEqual(ids.slice(0, 2));
    expect(idsOf(await listGroups({ rql: `and(eq(tag,string:${tag}),limit(2,2))` }))).toEqual(ids.slice(2, 4));
    const nested = await listGroups({ rql: `and(eq(tag,string:${tag}),or(eq(city,string:Omsk),limit(1)))` });
    expect(nested.statusCode).toBe(400);
    expect(nested.json).toEqual({
      errors: [
        {
          code: "validation_error",
          desc: expect.stringMatching(/^limit\(\.\.\.\) applies to the whole query: put it at the top level/),
          params: { field: "rql", position: expect.any(Number) },
        },
      ],
    });
    // Untyped values compare by text; typed ones by type.
    expect(idsOf(await listGroups({ rql: `and(tag=${tag},size=10)` })).length).toBe(2);
    expect(idsOf(await listGroups({ rql: `and(tag=${tag},size=string:10)` })).length).toBe(0);
  });

  it("when expand is absent or false only ids come back; true gives every attribute", async () => {
    const tag = uniqueId("t");
    const id = await newGroup({ tag, city: "Tver" });
    const plain = await listGroups({ rql: `tag=string:${tag}` });
    expect(plain.json).toEqual([{ id, instanceId: groupInstanceId(PROFILE, id) }]);
    expect((await listGroups({ rql: `tag=string:${tag}`, expand: "false" })).json).toEqual(plain.json);
    const full = await listGroups({ rql: `tag=string:${tag}`, expand: "true" });
    expect(full.json).toEqual([
      { id, profile: PROFILE, name: `Group ${id}`, instanceId: groupInstanceId(PROFILE, id), tag, city: "Tver" },
    ]);
  });

  it("when the rql is malformed, it answers 400 validation_error saying where", async () => {
    const response = await listGroups({ rql: "and(eq(city,string:Tver)" });
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      errors: [
        {
          code: "validation_error",
          desc: "expected ',' or ')' to close and( but found the end of the query (at character 25)",
          params: { field: "rql", position: 25 },
        },
      ],
    });
    const noProfile = await request("groups", "events/groups/list-groups.json", { query: {} });
    expect(noProfile.statusCode).toBe(400);
  });
});

describe("POST /svc/api/v2/grps/{groupId} (change)", () => {
  it("when fields are sent they replace, null removes, the rest stay", async () => {
    const id = await newGroup({ a: "1", b: 2 });
    const response = await changeGroup(id, { profile: PROFILE, id, b: null, c: false, name: "Renamed" });
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      id,
      profile: PROFILE,
      name: "Renamed",
      instanceId: groupInstanceId(PROFILE, id),
      a: "1",
      c: false,
    });
    const noName = await changeGroup(id, { profile: PROFILE, name: null });
    expect(noName.json).not.toHaveProperty("name");
    expect((await getGroup(id, { profile: PROFILE, expand: "true" })).json).toEqual(noName.json);
  });

  it("when the profile in the body differs from the query or the id from the path, it answers 400", async () => {
    const id = await newGroup({ a: "1" });
    const profile = await changeGroup(id, { profile: "dept", a: "2" });
    expect(profile.statusCode).toBe(400);
    expect(profile.json).toEqual({
      errors: [
        {
          code: "validation_error",
          desc: "profile: profile in the body must equal the profile query parameter",
          params: { field: "profile" },
        },
      ],
    });
    const renamed = await changeGroup(id, { profile: PROFILE, id: "other-id" });
    expect((renamed.json.errors as Array<{ params: { field: string } }>)[0].params.field).toBe("id");
    const missing = await changeGroup(id, { a: "2" });
    expect(missing.statusCode).toBe(400);
    expect((await getGroup(id, { profile: PROFILE, expand: "true" })).json.a).toBe("1");
  });

  it("when the group does not exist, it answers 404 and creates nothing", async () => {
    const id = uniqueId("grp-");
    expect((await changeGroup(id, { profile: PROFILE, a: "1" })).statusCode).toBe(404);
    expect(await storedItem(keys.group(PROFILE, id))).toBeUndefined();
  });

  it("when a change would pass 64 attributes, it answers 400 and changes nothing", async () => {
    const sixty = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`a${i}`, i]));
    const id = await newGroup(sixty);
    const five = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`b${i}`, i]));
    const response = await changeGroup(id, { profile: PROFILE, ...five });
    expect(response.statusCode).toBe(400);
    expect((response.json.errors as Array<{ code: string }>)[0].code).toBe("validation_error");
    expect((await getGroup(id, { profile: PROFILE, expand: "true" })).json).not.toHaveProperty("b0");
    expect((await changeGroup(id, { profile: PROFILE, a0: null, b0: 1 })).statusCode).toBe(200);
  });
});

describe("members", () => {
  it("when accounts are added and removed, each call is one round trip and both sides are stored", async () => {
    const id = await newGroup();
    const [a, b] = [await seedAccount(), await seedAccount()];
    await getGroup(id);
    let before = roundTripCount();
    const added = await addMembers(id, [a.sub, b.sub, a.sub]);
    expect(roundTripCount() - before).toBe(1);
    expect(added.statusCode).toBe(200);
    expect(added.json).toEqual([record(a.sub), record(b.sub)]);
    expect(await storedItem(keys.membership(a.sub, PROFILE, id))).toMatchObject({ profile: PROFILE, groupId: id });
    before = roundTripCount();
    expect((await members(id)).json).toEqual([a.sub, b.sub].sort().map((subjectId) => ({ subjectId })));
    // One Query: the members and the group's head.
    expect(roundTripCount() - before).toBe(1);
    before = roundTripCount();
    expect((await removeMembers(id, [a.sub])).json).toEqual([record(a.sub)]);
    expect(roundTripCount() - before).toBe(1);
    expect(await storedItem(keys.membership(a.sub, PROFILE, id))).toBeUndefined();
    expect((await members(id, false)).json).toEqual([{ subjectId: b.sub }]);
  });

  it("when some are already members or unknown, it answers with every one of them and adds none", async () => {
    const id = await newGroup();
    const [a, b, c] = [await seedAccount(), await seedAccount(), await seedAccount()];
    await addMembers(id, [a.sub, b.sub]);
    const already = await addMembers(id, [c.sub, a.sub, b.sub]);
    expect(already.statusCode).toBe(409);
    expect(already.json).toEqual({
      errors: [
        {
          code: "some_members_already_in_group",
          desc: "these accounts are already members of the group",
          params: { subjectIds: [a.sub, b.sub] },
        },
      ],
    });
    const unknown = await addMembers(id, [c.sub, "ghost-1", a.sub, "ghost-2"]);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json).toEqual({
      errors: [
        {
          code: "user_not_found",
          desc: "no account has these subject ids",
          params: { subjectIds: ["ghost-1", "ghost-2"] },
        },
      ],
    });
    expect((await members(id)).json).toEqual([a.sub, b.sub].sort().map((subjectId) => ({ subjectId })));
  });

  it("when some to remove are not members or unknown, it says which and removes none", async () => {
    const id = await newGroup();
    const [a, b] = [await seedAccount(), await seedAccount()];
    await addMembers(id, [a.sub]);
    const notIn = await removeMembers(id, [a.sub, b.sub]);
    expect(notIn.statusCode).toBe(409);
    expect(notIn.json).toEqual({
      errors: [
        {
          code: "some_members_not_in_group",
          desc: "these accounts are not members of the group",
          params: { subjectIds: [b.sub] },
        },
      ],
    });
    const unknown = await removeMembers(id, [a.sub, "ghost-3"]);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json.errors).toEqual([
      { code: "user_not_found", desc: "no account has these subject ids", params: { subjectIds: ["ghost-3"] } },
    ]);
    expect((await members(id)).json).toEqual([{ subjectId: a.sub }]);
  });

  it("when the group does not exist, member calls answer 404 group_not_found", async () => {
    const a = await seedAccount();
    for (const response of [
      await addMembers("no-group", [a.sub]),
      await removeMembers("no-group", [a.sub]),
      await members("no-group"),
    ]) {
      expect(response.statusCode).toBe(404);
      expect((response.json.errors as Array<{ code: string }>)[0].code).toBe("group_not_found");
    }
    expect(await storedItem(keys.membership(a.sub, PROFILE, "no-group"))).toBeUndefined();
  });

  it("when the member list is malformed or longer than one transaction holds, it answers 400", async () => {
    const id = await newGroup();
    for (const body of [[], [{}], [{ subjectId: "bad#sub" }], { subjectId: "x" }, [{ subjectId: "a", extra: 1 }]]) {
      const response = await request("groups", "events/groups/members-add.json", {
        params: { groupId: id },
        query: { profile: PROFILE },
        body,
      });
      expect({ body, status: response.statusCode }).toEqual({ body, status: 400 });
      expect((response.json.errors as Array<{ code: string }>)[0].code).toBe("validation_error");
    }
    const many = Array.from({ length: 34 }, (_, i) => `user-${i}`);
    const tooMany = await addMembers(id, many);
    expect(tooMany.statusCode).toBe(400);
  });

  it("when 33 accounts are added at once, all are added in one transaction", async () => {
    const id = await newGroup();
    const accounts = await Promise.all(Array.from({ length: 33 }, () => seedAccount()));
    const response = await addMembers(
      id,
      accounts.map((a) => a.sub),
    );
    expect(response.statusCode).toBe(200);
    expect((await members(id)).json).toHaveLength(33);
  });

  it("when an application uses its REST password (the Basic sample), members are added", async () => {
    const client = await createClient(["svc_api_sys_users"], { restPassword: "rest-password-0123456789abcdef0123" });
    const a = await seedAccount();
    const id = await newGroup();
    const response = await request("groups", "events/groups/members-add-basic.json", {
      params: { groupId: id },
      query: { profile: PROFILE },
      body: [{ subjectId: a.sub }],
      values: {
        clientBasic: basicCredentials(client.clientId, "rest-password-0123456789abcdef0123"),
      },
    });
    expect(response.statusCode).toBe(200);
  });

  it("when the token lacks svc_groups or expired, group calls answer 401 access_denied", async () => {
    const id = await newGroup();
    const wrong = await addMembers(id, ["x"], await systemBearer(["svc_api_sys_users"]));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json).toEqual({ errors: [{ code: "access_denied", desc: "insufficient_scope", params: {} }] });
    const expired = await addMembers(id, ["x"], `Bearer ${await expiredToken("svc_groups")}`);
    expect(expired.json).toEqual({ errors: [{ code: "access_denied", desc: "expired_access_token", params: {} }] });
  });

  it("when a group was written before heads existed, its members are listed and a missing group is 404", async () => {
    const id = await newGroup();
    const a = await seedAccount();
    await addMembers(id, [a.sub]);
    await documentClient().send(new DeleteCommand({ TableName: config().tableName, Key: keys.groupHead(PROFILE, id) }));
    const { result: listed, reads } = await spentBy(() => members(id));
    expect(listed.json).toEqual([{ subjectId: a.sub }]);
    // Without a head, the record decides: one GetItem more.
    expect(reads).toBe(2);
    const rights = await request("rights", "events/rights/rights-on-group.json", {
      params: { groupId: id },
      query: { objectExt: PROFILE },
    });
    expect(rights.statusCode).toBe(200);
    expect(rights.json).toEqual({});
    const missing = await members(uniqueId("no-such-group-"));
    expect(missing.statusCode).toBe(404);
    expect(missing.json).toMatchObject({ errors: [{ code: "group_not_found" }] });
  });

  it("when a group has 10,000 members (over 1 MB), they come 1,000 a page, each linked to the next, two reads a page", async () => {
    const id = await newGroup();
    // Long subject ids (allowed up to 128 characters) make the members well over 1 MB.
    const subs = Array.from({ length: 10_000 }, (_, i) => `member-${String(i).padStart(5, "0")}-${"x".repeat(80)}`);
    await services().groups.importMembers(PROFILE, id, subs, 1);
    const listed: Array<{ subjectId: string }> = [];
    let query: Record<string, string> | undefined = { profile: PROFILE };
    let pages = 0;
    while (query) {
      const before = roundTripCount();
      const response = await request("groups", "events/groups/members.json", { params: { groupId: id }, query });
      const calls = roundTripCount() - before;
      expect(response.statusCode).toBe(200);
      const page = response.json as unknown as Array<{ subjectId: string }>;
      listed.push(...page);
      pages += 1;
      const link = response.headers.link;
      if (link === undefined) {
        // The last page: its Query also reads the head.
        expect(calls).toBe(1);
        query = undefined;
      } else {
        expect(page).toHaveLength(1000);
        // The page's Query, then the head that sorts after the rest of the members.
        expect(calls).toBe(2);
        const target = /^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? "";
        const url = new URL(target, "http://x");
        expect(url.pathname).toBe(`/svc/api/v2/grps/${id}/members`);
        expect(url.searchParams.get("after")).toBe(page.at(-1)?.subjectId);
        query = Object.fromEntries(url.searchParams);
      }
    }
    // The 10th page's Query reaches the head, so it knows it is the last.
    expect(pages).toBe(10);
    expect(listed).toEqual(subs.map((subjectId) => ({ subjectId })));
  });

  it("when a listing asks for a smaller page, it gets that many, and exactly a page's worth needs no link", async () => {
    const id = await newGroup();
    const subs = Array.from({ length: 5 }, (_, i) => `paged-${i}`);
    await services().groups.importMembers(PROFILE, id, subs, 1);
    const first = await members(id, undefined, { limit: "2" });
    expect(first.json).toEqual([{ subjectId: "paged-0" }, { subjectId: "paged-1" }]);
    expect(first.headers.link).toBe(
      `</svc/api/v2/grps/${id}/members?profile=${PROFILE}&limit=2&after=paged-1>; rel="next"`,
    );
    const last = await members(id, undefined, { limit: "3", after: "paged-1" });
    expect(last.json).toEqual(subs.slice(2).map((subjectId) => ({ subjectId })));
    expect(last.headers.link).toBeUndefined();
    // A cursor that names no member still starts after it, in subject id order.
    expect((await members(id, undefined, { after: "paged-2x" })).json).toEqual([
      { subjectId: "paged-3" },
      { subjectId: "paged-4" },
    ]);
    const expanded = await members(id, true, { limit: "1" });
    expect(expanded.headers.link).toContain("expand=true");
  });

  it("when a listing's limit or cursor is malformed, it answers 400 validation_error naming it", async () => {
    const id = await newGroup();
    for (const [name, value] of [
      ["limit", "0"],
      ["limit", "1001"],
      ["limit", "ten"],
      ["after", " spaced"],
    ]) {
      const response = await members(id, undefined, { [name]: value });
      expect(response.statusCode).toBe(400);
      expect(JSON.stringify(response.json)).toContain("validation_error");
      expect(JSON.stringify(response.json)).toContain(name);
    }
  });

  it("when 150 members are listed with expand=true, their names come in batches of 100", async () => {
    const id = await newGroup();
    const accounts = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        seedAccount({ family_name: `F${i}`, email: undefined, phone_number: undefined }),
      ),
    );
    await services().groups.importMembers(
      PROFILE,
      id,
      accounts.map((a) => a.sub),
      1,
    );
    const before = roundTripCount();
    const response = await members(id, true);
    // The members' Query (with the group's head), then 150 accounts in two BatchGetItem calls.
    expect(roundTripCount() - before).toBe(3);
    const listed = response.json as unknown as Array<{ subjectId: string; family_name: string }>;
    expect(listed).toHaveLength(150);
    const byId = new Map(accounts.map((a) => [a.sub, a.family_name]));
    expect(listed.every((m) => m.family_name === byId.get(m.subjectId))).toBe(true);
  });
});

describe("DELETE /svc/api/v2/grps/{groupId}", () => {
  it("when a group is deleted, its members (both sides) and the rights on it go, and its id is free again", async () => {
    const id = await newGroup();
    const accounts = await Promise.all(Array.from({ length: 30 }, () => seedAccount()));
    await addMembers(
      id,
      accounts.map((a) => a.sub),
    );
    const lead = accounts[0];
    const { clientId } = await createClient();
    const rightsToken = await systemBearer(["svc_rights_full_access"]);
    for (const subject of [{ subject: lead.sub }, { subject: clientId, subjectType: "its" }]) {
      const assigned = await request("rights", "events/rights/assign-rights.json", {
        authorization: rightsToken,
        body: { ...subject, object: id, objectType: "grps", objectExt: PROFILE, rights: ["ORG_ADMIN"], tags: ["t"] },
      });
      expect(assigned.statusCode).toBe(204);
    }
    // Mark, read the partition, then the clean-up and the record's removal in one transaction.
    const { result: response, reads, writes } = await spentBy(() => deleteGroup(id));
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect({ reads, writes }).toEqual({ reads: 1, writes: 2 });
    expect((await getGroup(id)).statusCode).toBe(404);
    for (const account of accounts) expect(await storedItem(keys.membership(account.sub, PROFILE, id))).toBeUndefined();
    expect(await services().rights.grantsOf({ kind: "user", id: lead.sub })).toEqual([]);
    expect(await services().rights.grantsOf({ kind: "its", id: clientId })).toEqual([]);
    expect(await services().groups.members(PROFILE, id, { limit: 10 })).toEqual({ live: false, subs: [] });
    expect(await storedItem(keys.groupHead(PROFILE, id))).toBeUndefined();
    expect((await deleteGroup(id)).statusCode).toBe(404);
    const recreated = await request("groups", "events/groups/create-group.json", { body: { profile: PROFILE, id } });
    expect(recreated.statusCode).toBe(201);
    expect((await members(id)).json).toEqual([]);
  });

  it("when a group's clean-up is too big for one transaction, it goes in batches and the record still goes last", async () => {
    const id = await newGroup();
    // 60 members: 120 deletes, over TransactWriteItems' 100 items.
    const subs = Array.from({ length: 60 }, () => uniqueId("member-"));
    await services().groups.importMembers(PROFILE, id, subs, 1_800_000_000);
    const { result: response, writes } = await spentBy(() => deleteGroup(id));
    expect(response.statusCode).toBe(204);
    // The mark, five batches of 25 deletes or fewer, the record's conditional removal.
    expect(writes).toBe(7);
    expect(await storedItem(keys.group(PROFILE, id))).toBeUndefined();
    for (const sub of subs) {
      expect(await storedItem(keys.groupMember(PROFILE, id, sub))).toBeUndefined();
      expect(await storedItem(keys.membership(sub, PROFILE, id))).toBeUndefined();
    }
  });

  it("when a deletion was interrupted, the group is gone for every call and a repeated DELETE finishes it", async () => {
    const id = await newGroup();
    const a = await seedAccount();
    await addMembers(id, [a.sub]);
    // What a crashed DELETE leaves: the mark on the record and its head, with the members still there.
    for (const Key of [keys.group(PROFILE, id), keys.groupHead(PROFILE, id)]) {
      await documentClient().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key,
          UpdateExpression: "SET deleting = :t",
          ExpressionAttributeValues: { ":t": true },
        }),
      );
    }
    expect((await members(id)).statusCode).toBe(404);
    expect((await getGroup(id)).statusCode).toBe(404);
    expect((await addMembers(id, [a.sub])).statusCode).toBe(404);
    const rights = await request("rights", "events/rights/assign-rights.json", {
      authorization: await systemBearer(["svc_rights_full_access"]),
      body: { subject: a.sub, object: id, objectType: "grps", objectExt: PROFILE, rights: ["ORG_ADMIN"], tags: ["t"] },
    });
    expect(rights.json).toMatchObject({ error: "unknown_group" });
    const create = await request("groups", "events/groups/create-group.json", { body: { profile: PROFILE, id } });
    expect(create.statusCode).toBe(409);
    expect((create.json.errors as Array<{ desc: string }>)[0].desc).toMatch(/being deleted; repeat its DELETE/);
    expect((await deleteGroup(id)).statusCode).toBe(204);
    expect(await storedItem(keys.membership(a.sub, PROFILE, id))).toBeUndefined();
    expect(await storedItem(keys.group(PROFILE, id))).toBeUndefined();
  });

  it("when no profile is given, it answers 400 and deletes nothing", async () => {
    const id = await newGroup();
    const response = await request("groups", "events/groups/delete-group.json", { params: { groupId: id }, query: {} });
    expect(response.statusCode).toBe(400);
    expect((await getGroup(id)).statusCode).toBe(200);
  });
});
