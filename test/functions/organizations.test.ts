import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { groupInstanceId } from "../../lib/domain/groups/group";
import { keys } from "../../lib/store/keys";
import { grantKey, holderKey } from "../../lib/store/rights";
import { seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { orgWithAdmin } from "../support/organizations";
import { request } from "../support/requests";
import { spentBy } from "../support/round-trips";
import { storedItem, storedItems } from "../support/stored";

/** The organization admin routes (docs/organizations.md) on DynamoDB Local. */

const SAMPLES = {
  get: "events/orgs/get-org.json",
  members: "events/orgs/members.json",
  add: "events/orgs/member-add.json",
  remove: "events/orgs/member-remove.json",
  roles: "events/orgs/member-roles.json",
} as const;

interface Member {
  subjectId: string;
  family_name?: string;
  given_name?: string;
  middle_name?: string;
  roles: string[];
}
interface Page {
  members: Member[];
  next?: string;
}

const pageOf = (response: { json: unknown }) => response.json as Page;
const orgOf = (id: string) => ({ kind: "grps" as const, id, profile: "org" });
const userOf = (sub: string) => ({ kind: "user" as const, id: sub });
const role = (sub: string, orgId: string, right: string) => ({ subject: userOf(sub), object: orgOf(orgId), right });

async function newOrg(attributes: Record<string, unknown> = {}) {
  const id = uniqueId("org-");
  const created = await request("groups", "events/groups/create-group.json", {
    body: { profile: "org", id, ...attributes },
  });
  expect(created.statusCode).toBe(201);
  return id;
}

/** Each route called on `orgId`, naming `sub` where a member is named. */
function everyRoute(orgId: string, sub: string, authorization: string) {
  return {
    get: () => request("groups", SAMPLES.get, { params: { orgId }, authorization }),
    members: () => request("groups", SAMPLES.members, { params: { orgId }, authorization }),
    add: () => request("groups", SAMPLES.add, { params: { orgId }, body: { subjectId: sub }, authorization }),
    remove: () => request("groups", SAMPLES.remove, { params: { orgId, subjectId: sub }, authorization }),
    roles: () =>
      request("groups", SAMPLES.roles, { params: { orgId, subjectId: sub }, body: { roles: [] }, authorization }),
  };
}

const notFoundBody = (orgId: string) => ({
  type: "process_error",
  error: "group_not_found",
  desc: "no group has this id in this profile",
  params: { grpId: orgId, profile: "org" },
});

async function eventsOf(sub: string, type: string) {
  return (await storedItems(sub, "EVENT#")).filter((e) => e.type === type);
}

describe("GET /svc/api/v3/orgs/{orgId}", () => {
  it("when its admin reads it, it answers as the v2 group read with expand, in two reads (session with ORG_ADMIN, then the group)", async () => {
    const { orgId, token } = await orgWithAdmin();
    const v2 = await request("groups", "events/groups/get-group.json", {
      params: { groupId: orgId },
      query: { profile: "org", expand: "true" },
    });
    const { result, reads, writes } = await spentBy(() =>
      request("groups", SAMPLES.get, { params: { orgId }, authorization: token }),
    );
    expect(result.statusCode).toBe(200);
    expect(result.json).toEqual(v2.json);
    expect(result.json).toEqual({
      id: orgId,
      profile: "org",
      name: "Acme Ltd",
      instanceId: groupInstanceId("org", orgId),
    });
    expect(reads).toBe(2);
    // A successful read in user mode records its security event.
    expect(writes).toBe(1);
  });

  it("when an application reads it with svc_groups, it answers the same", async () => {
    const orgId = await newOrg({ name: "Acme Ltd" });
    const read = await request("groups", SAMPLES.get, {
      params: { orgId },
      authorization: await systemBearer(["svc_groups"]),
    });
    expect(read.statusCode).toBe(200);
    expect(read.json).toMatchObject({ id: orgId, profile: "org", name: "Acme Ltd" });
  });
});

describe("organization members and roles", () => {
  it("when an admin adds an account with roles, the membership both ways and each role's grant are stored, and its event names caller, org, target, roles", async () => {
    const { orgId, admin, token } = await orgWithAdmin();
    const member = await seedAccount();
    const added = await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub, roles: ["SYS_MON", "ORG_ADMIN", "SYS_MON"] },
      authorization: token,
    });
    expect(added.statusCode).toBe(201);
    expect(added.json).toEqual({ subjectId: member.sub, roles: ["ORG_ADMIN", "SYS_MON"] });
    expect(await storedItem(keys.groupMember("org", orgId, member.sub))).toMatchObject({ sub: member.sub });
    expect(await storedItem(keys.membership(member.sub, "org", orgId))).toMatchObject({ groupId: orgId });
    for (const right of ["ORG_ADMIN", "SYS_MON"]) {
      expect(await storedItem(grantKey(role(member.sub, orgId, right)))).toMatchObject({
        right,
        tags: new Set(["org"]),
      });
      expect(await storedItem(holderKey(role(member.sub, orgId, right)))).toMatchObject({ subjectKey: member.sub });
    }
    const [event] = await eventsOf(admin.sub, "orgs.member-add");
    expect(event).toMatchObject({
      sbj: admin.sub,
      result: "ok",
      prms: { route: "orgs.member-add", org: orgId, target: member.sub, roles: ["ORG_ADMIN", "SYS_MON"] },
    });

    const again = await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub },
      authorization: token,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({ error: "some_members_already_in_group" });
  });

  it("when the account or a right is unknown, or a right does not apply to groups, it answers 400 and stores nothing", async () => {
    const { orgId, token } = await orgWithAdmin();
    const member = await seedAccount();
    const cases: Array<[unknown, string]> = [
      [{ subjectId: "nobody-here" }, "user_not_found"],
      [{ subjectId: member.sub, roles: ["NO_SUCH_RIGHT"] }, "unknown_right"],
      [{ subjectId: member.sub, roles: ["change_password"] }, "unknown_right"],
      [{ subjectId: member.sub, roles: ["APP_ADMIN"] }, "unknown_right"],
    ];
    for (const [body, error] of cases) {
      const refused = await request("groups", SAMPLES.add, { params: { orgId }, body, authorization: token });
      expect(refused.statusCode).toBe(400);
      expect(refused.json).toMatchObject({ type: "process_error", error });
    }
    expect(await storedItem(keys.groupMember("org", orgId, member.sub))).toBeUndefined();
    expect(await storedItems(member.sub, "MEMBER_OF#")).toEqual([]);
    expect(await storedItems(member.sub, "RIGHT#")).toEqual([]);
  });

  it("when a custom right applies to users over groups it can be a role; one that does not is refused", async () => {
    const { orgId, token } = await orgWithAdmin();
    const member = await seedAccount();
    const forGroups = uniqueId("Billing");
    const forUsers = uniqueId("Helpdesk");
    await services().rightDefinitions.create(
      { name: forGroups, description: "", subjectTypes: ["user"], objectTypes: ["grps"], builtin: false },
      0,
    );
    await services().rightDefinitions.create(
      { name: forUsers, description: "", subjectTypes: ["user"], objectTypes: ["user"], builtin: false },
      0,
    );
    const refused = await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub, roles: [forUsers] },
      authorization: token,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json).toMatchObject({ error: "unknown_right", params: { right: forUsers } });
    expect(await storedItem(keys.groupMember("org", orgId, member.sub))).toBeUndefined();
    const added = await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub, roles: [forGroups] },
      authorization: token,
    });
    expect(added.statusCode).toBe(201);
    expect(await storedItem(grantKey(role(member.sub, orgId, forGroups)))).toMatchObject({ right: forGroups });
  });

  it("when an admin sets a member's roles, new ones are granted and the others revoked, and the listing shows them", async () => {
    const { orgId, admin, token } = await orgWithAdmin();
    const member = await seedAccount({ family_name: "Petrova", given_name: "Olga" });
    await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub, roles: ["SYS_MON"] },
      authorization: token,
    });
    const set = await request("groups", SAMPLES.roles, {
      params: { orgId, subjectId: member.sub },
      body: { roles: ["ORG_ADMIN"] },
      authorization: token,
    });
    expect(set.statusCode).toBe(200);
    expect(set.json).toEqual({ subjectId: member.sub, roles: ["ORG_ADMIN"] });
    expect(await storedItem(grantKey(role(member.sub, orgId, "SYS_MON")))).toBeUndefined();
    expect(await storedItem(holderKey(role(member.sub, orgId, "SYS_MON")))).toBeUndefined();
    expect(await storedItem(grantKey(role(member.sub, orgId, "ORG_ADMIN")))).toMatchObject({ right: "ORG_ADMIN" });
    const [event] = await eventsOf(admin.sub, "orgs.member-roles");
    expect(event).toMatchObject({ prms: { org: orgId, target: member.sub, roles: ["ORG_ADMIN"] } });

    const listed = await request("groups", SAMPLES.members, { params: { orgId }, query: {}, authorization: token });
    expect(listed.statusCode).toBe(200);
    const byId = new Map(pageOf(listed).members.map((m) => [m.subjectId, m]));
    expect(byId.get(member.sub)).toEqual({
      subjectId: member.sub,
      family_name: "Petrova",
      given_name: "Olga",
      middle_name: member.middle_name,
      roles: ["ORG_ADMIN"],
    });
    expect(byId.get(admin.sub)?.roles).toEqual(["ORG_ADMIN"]);

    const unknown = await request("groups", SAMPLES.roles, {
      params: { orgId, subjectId: member.sub },
      body: { roles: ["NOPE"] },
      authorization: token,
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json).toMatchObject({ error: "unknown_right" });
    expect(await storedItem(grantKey(role(member.sub, orgId, "ORG_ADMIN")))).toMatchObject({ right: "ORG_ADMIN" });
  });

  it("when an admin removes a member, its membership and every role over the org go in one transaction", async () => {
    const { orgId, admin, token } = await orgWithAdmin();
    const member = await seedAccount();
    await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub, roles: ["SYS_MON", "ORG_ADMIN"] },
      authorization: token,
    });
    const { result, writes } = await spentBy(() =>
      request("groups", SAMPLES.remove, { params: { orgId, subjectId: member.sub }, authorization: token }),
    );
    expect(result.statusCode).toBe(204);
    expect(writes).toBe(1);
    expect(await storedItem(keys.groupMember("org", orgId, member.sub))).toBeUndefined();
    expect(await storedItems(member.sub, "MEMBER_OF#")).toEqual([]);
    expect(await storedItems(member.sub, "RIGHT#")).toEqual([]);
    expect(await storedItem(holderKey(role(member.sub, orgId, "ORG_ADMIN")))).toBeUndefined();
    const [event] = await eventsOf(admin.sub, "orgs.member-remove");
    expect(event).toMatchObject({ sbj: admin.sub, prms: { org: orgId, target: member.sub } });
    const again = await request("groups", SAMPLES.remove, {
      params: { orgId, subjectId: member.sub },
      authorization: token,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({ error: "some_members_not_in_group" });
  });

  it("when the last ORG_ADMIN would go (its role set without it, or its removal), it answers 409 last_org_admin and keeps it; with another admin it may leave", async () => {
    const { orgId, admin, token } = await orgWithAdmin();
    for (const call of [
      () =>
        request("groups", SAMPLES.roles, {
          params: { orgId, subjectId: admin.sub },
          body: { roles: ["SYS_MON"] },
          authorization: token,
        }),
      () => request("groups", SAMPLES.remove, { params: { orgId, subjectId: admin.sub }, authorization: token }),
      async () =>
        request("groups", SAMPLES.remove, {
          params: { orgId, subjectId: admin.sub },
          authorization: await systemBearer(["svc_groups"]),
        }),
    ]) {
      const refused = await call();
      expect(refused.statusCode).toBe(409);
      expect(refused.json).toMatchObject({ error: "last_org_admin" });
      expect(await storedItem(grantKey(role(admin.sub, orgId, "ORG_ADMIN")))).toBeDefined();
      expect(await storedItem(keys.groupMember("org", orgId, admin.sub))).toBeDefined();
    }
    const other = await seedAccount();
    await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: other.sub, roles: ["ORG_ADMIN"] },
      authorization: token,
    });
    const left = await request("groups", SAMPLES.remove, {
      params: { orgId, subjectId: admin.sub },
      authorization: token,
    });
    expect(left.statusCode).toBe(204);
    expect(await storedItem(grantKey(role(admin.sub, orgId, "ORG_ADMIN")))).toBeUndefined();
    expect(await storedItem(grantKey(role(other.sub, orgId, "ORG_ADMIN")))).toBeDefined();
  });

  it("when the last two admins remove each other at once, at least one keeps ORG_ADMIN", async () => {
    for (let round = 0; round < 3; round++) {
      const { orgId, admin: first, token: firstToken } = await orgWithAdmin();
      const second = await seedAccount();
      await request("groups", SAMPLES.add, {
        params: { orgId },
        body: { subjectId: second.sub, roles: ["ORG_ADMIN"] },
        authorization: firstToken,
      });
      const secondToken = await userBearer(second.sub, ["svc_org_admin"]);
      const answers = await Promise.all([
        request("groups", SAMPLES.roles, {
          params: { orgId, subjectId: second.sub },
          body: { roles: [] },
          authorization: firstToken,
        }),
        request("groups", SAMPLES.remove, { params: { orgId, subjectId: first.sub }, authorization: secondToken }),
      ]);
      const kept = await Promise.all(
        [first.sub, second.sub].map(
          async (sub) => (await storedItem(grantKey(role(sub, orgId, "ORG_ADMIN")))) !== undefined,
        ),
      );
      expect(kept.filter(Boolean).length).toBeGreaterThanOrEqual(1);
      // The one that lost is refused as the org's non-admin (404) or by the race (409), never 500.
      for (const answer of answers) expect([200, 204, 404, 409]).toContain(answer.statusCode);
      expect(answers.filter((a) => a.statusCode >= 400).length).toBeGreaterThanOrEqual(1);
    }
  });

  it("when 250 members are listed 17 at a time, every one comes once, in order, with its roles", async () => {
    const { orgId, admin, token } = await orgWithAdmin();
    const subs = Array.from({ length: 249 }, (_, i) => `m${String(i).padStart(3, "0")}-${uniqueId("")}`);
    await services().groups.importMembers("org", orgId, subs, Math.floor(Date.now() / 1000));
    await services().rights.importGrants(
      subs.filter((_, i) => i % 10 === 0).map((sub) => ({ ...role(sub, orgId, "SYS_MON"), tags: ["org"] })),
    );
    const seen: Member[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { result, reads } = await spentBy(() =>
        request("groups", SAMPLES.members, {
          params: { orgId },
          query: { limit: "17", ...(cursor && { cursor }) },
          authorization: token,
        }),
      );
      expect(result.statusCode).toBe(200);
      // Session with ORG_ADMIN, the member Query (and the head past it), names and roles.
      expect(reads).toBeLessThanOrEqual(5);
      const page = pageOf(result);
      expect(page.members.length).toBeLessThanOrEqual(17);
      seen.push(...page.members);
      cursor = page.next;
      pages++;
    } while (cursor);
    const all = [...subs, admin.sub].sort();
    expect(seen.map((m) => m.subjectId)).toEqual(all);
    expect(pages).toBe(Math.ceil(250 / 17));
    for (const member of seen) {
      const expected =
        member.subjectId === admin.sub ? ["ORG_ADMIN"] : subs.indexOf(member.subjectId) % 10 === 0 ? ["SYS_MON"] : [];
      expect(member.roles).toEqual(expected);
    }
  });
});

describe("who may call", () => {
  it("when an admin of organization A calls any route on organization B, it answers 404 exactly as for a missing organization, and changes nothing", async () => {
    const a = await orgWithAdmin();
    const b = await orgWithAdmin();
    const missing = uniqueId("org-");
    for (const [name, call] of Object.entries(everyRoute(b.orgId, b.admin.sub, a.token))) {
      const answer = await call();
      expect(answer.statusCode, name).toBe(404);
      expect(answer.json, name).toEqual(notFoundBody(b.orgId));
      const absent = await everyRoute(missing, b.admin.sub, a.token)[name as keyof ReturnType<typeof everyRoute>]();
      expect(absent.statusCode, name).toBe(404);
      expect(absent.json, name).toEqual(notFoundBody(missing));
    }
    expect(await storedItem(keys.groupMember("org", b.orgId, b.admin.sub))).toBeDefined();
    expect(await storedItem(grantKey(role(b.admin.sub, b.orgId, "ORG_ADMIN")))).toBeDefined();
    // The attempts are in the caller's trail, each naming the organization it reached for.
    const refused = (await storedItems(a.admin.sub, "EVENT#")).filter((e) => e.result === "group_not_found");
    expect(refused.length).toBeGreaterThanOrEqual(5);
    const reachedFor = refused.map((e) => (e.prms as { on?: string[] }).on?.[0]);
    expect(new Set(reachedFor)).toEqual(new Set([`orgId=${b.orgId}`, `orgId=${missing}`]));
  });

  it("when a member without ORG_ADMIN calls, it answers 404; a token without svc_org_admin 401; a revoked ORG_ADMIN refuses the very next call", async () => {
    const { orgId, admin, token } = await orgWithAdmin();
    const member = await seedAccount();
    await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub, roles: ["SYS_MON"] },
      authorization: token,
    });
    const memberToken = await userBearer(member.sub, ["svc_org_admin"]);
    for (const [name, call] of Object.entries(everyRoute(orgId, member.sub, memberToken))) {
      const answer = await call();
      expect(answer.statusCode, name).toBe(404);
    }
    const noPermission = await userBearer(admin.sub, ["svc_api_user", "svc_groups"]);
    for (const [name, call] of Object.entries(everyRoute(orgId, member.sub, noPermission))) {
      const answer = await call();
      expect(answer.statusCode, name).toBe(401);
      expect(answer.json, name).toMatchObject({ error: "bad_access_token", desc: "insufficient_scope" });
    }
    expect((await request("groups", SAMPLES.get, { params: { orgId }, authorization: token })).statusCode).toBe(200);
    await services().rights.commit([], [{ ...role(admin.sub, orgId, "ORG_ADMIN"), op: "delete", expectedRev: 1 }]);
    const next = await request("groups", SAMPLES.get, { params: { orgId }, authorization: token });
    expect(next.statusCode).toBe(404);
    expect(next.json).toEqual(notFoundBody(orgId));
  });

  it("when an application adds a member with roles, it needs svc_rights_full_access besides svc_groups; roles alone need svc_rights_full_access", async () => {
    const { orgId } = await orgWithAdmin();
    const member = await seedAccount();
    const groupsOnly = await systemBearer(["svc_groups"]);
    const refused = await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub, roles: ["SYS_MON"] },
      authorization: groupsOnly,
    });
    expect(refused.statusCode).toBe(401);
    expect(await storedItem(keys.groupMember("org", orgId, member.sub))).toBeUndefined();
    const plain = await request("groups", SAMPLES.add, {
      params: { orgId },
      body: { subjectId: member.sub },
      authorization: groupsOnly,
    });
    expect(plain.statusCode).toBe(201);
    const roles = await request("groups", SAMPLES.roles, {
      params: { orgId, subjectId: member.sub },
      body: { roles: ["SYS_MON"] },
      authorization: await systemBearer(["svc_rights_full_access"]),
    });
    expect(roles.statusCode).toBe(200);
    expect(await storedItem(grantKey(role(member.sub, orgId, "SYS_MON")))).toMatchObject({ tags: new Set(["org"]) });
  });
});

describe("bad input", () => {
  it("answers 400 in the v3 shape, never 500, and stores nothing", async () => {
    const { orgId, token } = await orgWithAdmin();
    const member = await seedAccount();
    const cases = [
      () => request("groups", SAMPLES.get, { params: { orgId: "bad id!" }, authorization: token }),
      () => request("groups", SAMPLES.members, { params: { orgId }, query: { limit: "0" }, authorization: token }),
      () => request("groups", SAMPLES.members, { params: { orgId }, query: { limit: "101" }, authorization: token }),
      () => request("groups", SAMPLES.members, { params: { orgId }, query: { cursor: "JSQ" }, authorization: token }),
      () => request("groups", SAMPLES.add, { params: { orgId }, body: {}, authorization: token }),
      () => request("groups", SAMPLES.add, { params: { orgId }, body: "{not json", authorization: token }),
      () =>
        request("groups", SAMPLES.add, {
          params: { orgId },
          body: { subjectId: member.sub, roles: "ORG_ADMIN" },
          authorization: token,
        }),
      () =>
        request("groups", SAMPLES.add, {
          params: { orgId },
          body: { subjectId: member.sub, roles: Array.from({ length: 21 }, (_, i) => `R${i}`) },
          authorization: token,
        }),
      () =>
        request("groups", SAMPLES.add, {
          params: { orgId },
          body: { subjectId: member.sub, extra: 1 },
          authorization: token,
        }),
      () =>
        request("groups", SAMPLES.roles, {
          params: { orgId, subjectId: member.sub },
          body: { roles: ["bad name"] },
          authorization: token,
        }),
      () => request("groups", SAMPLES.remove, { params: { orgId, subjectId: "../x" }, authorization: token }),
    ];
    for (const [i, call] of cases.entries()) {
      const answer = await call();
      expect(answer.statusCode, `case ${i}`).toBe(400);
      expect(answer.json, `case ${i}`).toMatchObject({ type: expect.stringMatching(/input_error|process_error/) });
    }
    expect(await storedItem(keys.groupMember("org", orgId, member.sub))).toBeUndefined();
    expect(await storedItems(member.sub, "RIGHT#")).toEqual([]);
  });
});

describe("roles given through the rights API", () => {
  it("when a role is granted through the rights API after a removal read the member's roles, the removal is refused as stale, so the new role never outlives the membership", async () => {
    const { orgId } = await orgWithAdmin();
    const member = await seedAccount();
    await services().groups.addMembers("org", orgId, [member.sub], Math.floor(Date.now() / 1000));
    const before = await services().organizations.memberState(orgId, member.sub);
    expect(before).toEqual({ rev: 0, roles: [] });
    const granted = await request("rights", "events/rights/assign-rights.json", {
      body: {
        subject: member.sub,
        object: orgId,
        objectType: "grps",
        objectExt: "org",
        rights: ["SYS_MON"],
        tags: ["ops"],
      },
    });
    expect(granted.statusCode, granted.body).toBe(204);
    expect(await services().organizations.memberState(orgId, member.sub)).toEqual({ rev: 1, roles: ["SYS_MON"] });
    // The removal that read the roles before the grant: refused, nothing removed.
    await expect(
      services().organizations.removeMember(orgId, member.sub, before as NonNullable<typeof before>, {
        customRights: [],
        alsoWrite: [],
      }),
    ).rejects.toMatchObject({ reasons: ["stale"] });
    expect(await services().organizations.memberState(orgId, member.sub)).toMatchObject({ roles: ["SYS_MON"] });
    // Through the route, which reads again: the member and the role go together.
    const removed = await request("groups", "events/orgs/member-remove.json", {
      params: { orgId, subjectId: member.sub },
      authorization: await systemBearer(["svc_groups"]),
    });
    expect(removed.statusCode, removed.body).toBe(204);
    const object = { kind: "grps" as const, id: orgId, profile: "org" };
    expect(
      await storedItem(grantKey({ subject: { kind: "user", id: member.sub }, object, right: "SYS_MON" })),
    ).toBeUndefined();
  });

  it("when a role is granted through the rights API to someone who is no member, no member item appears", async () => {
    const { orgId } = await orgWithAdmin();
    const outsider = await seedAccount();
    const granted = await request("rights", "events/rights/assign-rights.json", {
      body: {
        subject: outsider.sub,
        object: orgId,
        objectType: "grps",
        objectExt: "org",
        rights: ["SYS_MON"],
        tags: ["ops"],
      },
    });
    expect(granted.statusCode, granted.body).toBe(204);
    expect(await storedItem(keys.groupMember("org", orgId, outsider.sub))).toBeUndefined();
  });
});
