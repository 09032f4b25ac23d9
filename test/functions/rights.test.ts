import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { roundTripCount } from "../../lib/store/client";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { expiredToken } from "../support/forged-tokens";
import { request } from "../support/requests";
import { storedItem } from "../support/stored";
import { watchCalls } from "../support/watch-calls";

async function seedGroup(profile = "org") {
  const id = uniqueId("grp-");
  const now = Math.floor(Date.now() / 1000);
  await services().groups.create({ id, profile, name: id, attributes: {}, createdAt: now, updatedAt: now });
  return { id, profile };
}

function assign(body: unknown, authorization?: string) {
  return request("rights", "events/rights/assign-rights.json", { body, authorization });
}

function revoke(body: unknown, authorization?: string) {
  return request("rights", "events/rights/revoke-tag.json", { body, authorization });
}

async function rightsOf(sub: string, authorization?: string) {
  return request("rights", "events/rights/rights-of-user.json", { params: { subjectId: sub }, authorization });
}

async function rightsOn(sub: string) {
  return request("rights", "events/rights/rights-on-user.json", { params: { subjectId: sub } });
}

describe("PUT and DELETE /svc/api/v3/rights", () => {
  it("when the sample events run, the lead holds the rights, read the same from both sides", async () => {
    await seedAccount({ sub: "sample-admin", email: undefined, phone_number: undefined });
    await seedAccount({ sub: "sample-user", email: undefined, phone_number: undefined });
    const assigned = await request("rights", "events/rights/assign-rights.json");
    expect(assigned.statusCode).toBe(204);
    expect(assigned.body).toBe("");
    const of = await request("rights", "events/rights/rights-of-user.json");
    expect(of.json).toEqual({
      "sample-user": { SYS_MON: ["family", "support"], change_password: ["family", "support"] },
    });
    const on = await request("rights", "events/rights/rights-on-user.json");
    expect(on.json).toEqual({ "sample-admin": ["SYS_MON", "change_password"] });
    const userMode = await request("rights", "events/rights/rights-of-user-user-mode.json");
    expect(userMode.statusCode).toBe(200);
    expect(userMode.json).toEqual(of.json);
    expect((await request("rights", "events/rights/revoke-tag.json")).statusCode).toBe(204);
    expect((await request("rights", "events/rights/rights-of-user.json")).json).toEqual({
      "sample-user": { SYS_MON: ["family", "support"], change_password: ["family"] },
    });
  });

  it("when several rights with several tags are assigned, it costs one round trip and both directions agree", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    const token = await systemBearer(["svc_rights_full_access"]);
    await assign({ subject: lead.sub, object: member.sub, rights: ["SYS_MON"], tags: ["warm"] }, token);
    const before = roundTripCount();
    const response = await assign(
      { subject: lead.sub, object: member.sub, rights: ["change_password", "SYS_MON"], tags: ["family", "support"] },
      token,
    );
    expect(roundTripCount() - before).toBe(1);
    expect(response.statusCode).toBe(204);
    expect((await rightsOf(lead.sub, token)).json).toEqual({
      [member.sub]: { SYS_MON: ["family", "support", "warm"], change_password: ["family", "support"] },
    });
    expect((await rightsOn(member.sub)).json).toEqual({ [lead.sub]: ["SYS_MON", "change_password"] });
  });

  it("when some tags are revoked the right stays; when the last tag goes the right goes, from both sides", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    const token = await systemBearer(["svc_rights_full_access"]);
    const pair = { subject: lead.sub, object: member.sub, rights: ["change_password", "SYS_MON"] };
    await assign({ ...pair, tags: ["a", "b", "c"] }, token);
    const before = roundTripCount();
    expect((await revoke({ ...pair, tags: ["a", "b"] }, token)).statusCode).toBe(204);
    expect(roundTripCount() - before).toBe(2);
    expect((await rightsOf(lead.sub, token)).json).toEqual({
      [member.sub]: { SYS_MON: ["c"], change_password: ["c"] },
    });
    expect((await revoke({ ...pair, rights: ["SYS_MON"], tags: ["c", "not-there"] }, token)).statusCode).toBe(204);
    expect((await rightsOf(lead.sub, token)).json).toEqual({ [member.sub]: { change_password: ["c"] } });
    expect((await rightsOn(member.sub)).json).toEqual({ [lead.sub]: ["change_password"] });
    expect(await storedItem(keys.rightHolder(keys.userPartition(member.sub), lead.sub, "SYS_MON"))).toBeUndefined();
  });

  it("when DELETE names no tags, the rights are revoked whole; revoking what is not held succeeds", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    const token = await systemBearer(["svc_rights_full_access"]);
    await assign({ subject: lead.sub, object: member.sub, rights: ["SYS_MON"], tags: ["a", "b"] }, token);
    expect((await revoke({ subject: lead.sub, object: member.sub, rights: ["SYS_MON"] }, token)).statusCode).toBe(204);
    expect((await rightsOf(lead.sub, token)).json).toEqual({});
    expect((await rightsOn(member.sub)).json).toEqual({});
    expect((await revoke({ subject: lead.sub, object: member.sub, rights: ["SYS_MON"] }, token)).statusCode).toBe(204);
  });

  it("when an application holds rights on a group and on an application, the keys are its|id and grps|id|profile", async () => {
    const { clientId } = await createClient();
    const other = await createClient();
    const group = await seedGroup();
    const token = await systemBearer(["svc_rights_full_access"]);
    const onGroup = await request("rights", "events/rights/assign-app-on-group.json", {
      values: { clientId },
      body: {
        subject: clientId,
        subjectType: "its",
        object: group.id,
        objectType: "grps",
        objectExt: group.profile,
        rights: ["ORG_ADMIN", "SYS_MON"],
        tags: ["contract-42"],
      },
    });
    expect(onGroup.statusCode).toBe(204);
    const onApp = await assign(
      {
        subject: clientId,
        subjectType: "its",
        object: other.clientId,
        objectType: "its",
        rights: ["APP_ADMIN"],
        tags: ["ops"],
      },
      token,
    );
    expect(onApp.statusCode).toBe(204);
    const of = await request("rights", "events/rights/rights-of-app.json", { values: { clientId } });
    expect(of.json).toEqual({
      [`grps|${group.id}|${group.profile}`]: { ORG_ADMIN: ["contract-42"], SYS_MON: ["contract-42"] },
      [`its|${other.clientId}`]: { APP_ADMIN: ["ops"] },
    });
    const onGroupRead = await request("rights", "events/rights/rights-on-group.json", {
      params: { groupId: group.id },
      query: { objectExt: group.profile },
    });
    expect(onGroupRead.json).toEqual({ [`its|${clientId}`]: ["ORG_ADMIN", "SYS_MON"] });
    const onAppRead = await request("rights", "events/rights/rights-on-app.json", {
      values: { clientId: other.clientId },
    });
    expect(onAppRead.json).toEqual({ [`its|${clientId}`]: ["APP_ADMIN"] });
  });

  it("when a user holds rights on an application and a group, they are listed under those keys", async () => {
    const lead = await seedAccount();
    const { clientId } = await createClient();
    const group = await seedGroup("dept");
    const token = await systemBearer(["svc_rights_full_access"]);
    await assign({ subject: lead.sub, object: clientId, objectType: "its", rights: ["APP_ADMIN"], tags: ["t"] }, token);
    await assign(
      {
        subject: lead.sub,
        object: group.id,
        objectType: "grps",
        objectExt: "dept",
        rights: ["ORG_ADMIN"],
        tags: ["t"],
      },
      token,
    );
    expect((await rightsOf(lead.sub, token)).json).toEqual({
      [`grps|${group.id}|dept`]: { ORG_ADMIN: ["t"] },
      [`its|${clientId}`]: { APP_ADMIN: ["t"] },
    });
  });

  it.each([
    [
      "an unknown right",
      (s: string, o: string) => ({ subject: s, object: o, rights: ["NO_SUCH"], tags: ["t"] }),
      {
        error: "unknown_right",
        desc: "no right of this name in the catalogue",
        params: { right: "NO_SUCH" },
      },
    ],
    [
      "an unknown subject",
      (_s: string, o: string) => ({ subject: "ghost-subject", object: o, rights: ["SYS_MON"], tags: ["t"] }),
      {
        error: "unknown_user",
        desc: "no account has this identifier",
        params: { userId: "ghost-subject" },
      },
    ],
    [
      "an unknown object",
      (s: string) => ({ subject: s, object: "ghost-object", rights: ["SYS_MON"], tags: ["t"] }),
      {
        error: "unknown_user",
        desc: "no account has this identifier",
        params: { userId: "ghost-object" },
      },
    ],
    [
      "an unknown group",
      (s: string) => ({
        subject: s,
        object: "no-grp",
        objectType: "grps",
        objectExt: "org",
        rights: ["SYS_MON"],
        tags: ["t"],
      }),
      {
        error: "unknown_group",
        desc: "no group has this identifier in this profile",
        params: { grpId: "no-grp", profile: "org" },
      },
    ],
    [
      "an unknown application as subject",
      (_s: string, o: string) => ({
        subject: "no-app",
        subjectType: "its",
        object: o,
        rights: ["SYS_MON"],
        tags: ["t"],
      }),
      {
        error: "unknown_rp",
        desc: "no application has this identifier",
        params: { rpId: "no-app" },
      },
    ],
    [
      "an unknown application as object",
      (s: string) => ({ subject: s, object: "no-app", objectType: "its", rights: ["SYS_MON"], tags: ["t"] }),
      {
        error: "unknown_rp",
        desc: "no application has this identifier",
        params: { rpId: "no-app" },
      },
    ],
  ])(
    "when the body names %s, it answers 400 process_error with its params and stores nothing",
    async (_, body, expected) => {
      const lead = await seedAccount();
      const member = await seedAccount();
      const token = await systemBearer(["svc_rights_full_access"]);
      const response = await assign(body(lead.sub, member.sub), token);
      expect(response.statusCode).toBe(400);
      expect(response.json).toEqual({ type: "process_error", ...expected });
      expect((await rightsOf(lead.sub, token)).json).toEqual({});
      expect((await rightsOn(member.sub)).json).toEqual({});
      const revoked = await revoke(body(lead.sub, member.sub), token);
      expect(revoked.json).toEqual({ type: "process_error", ...expected });
    },
  );

  it("when one right of several is unknown, none is assigned", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    const token = await systemBearer(["svc_rights_full_access"]);
    await services()
      .rightDefinitions.create(
        { name: "ONE_OF_MANY", description: "", subjectTypes: ["user"], objectTypes: ["user"], builtin: false },
        1,
      )
      .catch(() => undefined);
    const response = await assign(
      { subject: lead.sub, object: member.sub, rights: ["SYS_MON", "ONE_OF_MANY", "MISSING_ONE"], tags: ["t"] },
      token,
    );
    expect(response.json).toMatchObject({ error: "unknown_right", params: { right: "MISSING_ONE" } });
    expect((await rightsOf(lead.sub, token)).json).toEqual({});
  });

  it("when a right does not apply to these kinds of subject and object, it answers unknown_right saying why", async () => {
    const lead = await seedAccount();
    const group = await seedGroup();
    const response = await assign(
      {
        subject: lead.sub,
        object: group.id,
        objectType: "grps",
        objectExt: "org",
        rights: ["change_password"],
        tags: ["t"],
      },
      await systemBearer(["svc_rights_full_access"]),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      type: "process_error",
      error: "unknown_right",
      desc: "right change_password applies to subjects of kind user and objects of kind user, not to a user subject and a grps object",
      params: { right: "change_password", subjectType: "user", objectType: "grps" },
    });
  });

  it("when the body is malformed, it answers 400 input_error naming each field and stores nothing", async () => {
    const lead = await seedAccount();
    const token = await systemBearer(["svc_rights_full_access"]);
    const cases: Array<[unknown, string[]]> = [
      [{ subject: lead.sub, object: "g", objectType: "grps", rights: ["SYS_MON"], tags: ["t"] }, ["objectExt"]],
      [{ subject: lead.sub, object: lead.sub, objectExt: "org", rights: ["SYS_MON"], tags: ["t"] }, ["objectExt"]],
      [{ subject: lead.sub, object: lead.sub, rights: [], tags: [] }, ["rights", "tags"]],
      [{ subject: lead.sub, object: lead.sub, rights: ["bad right"], tags: [""] }, ["rights.0", "tags.0"]],
      [{ subject: "bad#id", object: lead.sub, rights: ["SYS_MON"], tags: ["t"] }, ["subject"]],
      [{ subject: lead.sub, subjectType: "grps", object: lead.sub, rights: ["SYS_MON"], tags: ["t"] }, ["subjectType"]],
      [{ subject: lead.sub, object: lead.sub, rights: ["SYS_MON"], tags: ["t"], extra: 1 }, ["extra"]],
      [{ object: lead.sub, rights: ["SYS_MON"] }, ["subject", "tags"]],
    ];
    for (const [body, positions] of cases) {
      const response = await assign(body, token);
      expect({ body, status: response.statusCode, type: response.json.type }).toEqual({
        body,
        status: 400,
        type: "input_error",
      });
      const found = (response.json.errors as Array<{ pos: string }>).map((e) => e.pos).sort();
      expect(found).toEqual(positions);
    }
    expect((await assign("{oops", token)).json).toMatchObject({ error: "malformed_body" });
    expect((await rightsOf(lead.sub, token)).json).toEqual({});
  });

  it("when the token expired, lacks the permission or is a user token, it answers 401", async () => {
    const lead = await seedAccount();
    const body = { subject: lead.sub, object: lead.sub, rights: ["SYS_MON"], tags: ["t"] };
    const expired = await assign(body, `Bearer ${await expiredToken("svc_rights_full_access")}`);
    expect(expired.statusCode).toBe(401);
    expect(expired.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "expired_access_token" });
    const wrongScope = await assign(body, await systemBearer(["svc_groups"]));
    expect(wrongScope.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "insufficient_scope" });
    const userMode = await revoke(body, await userBearer(lead.sub, ["svc_user_rights"]));
    expect(userMode.statusCode).toBe(401);
    expect((await rightsOf(lead.sub, await systemBearer(["svc_rights_full_access"]))).json).toEqual({});
  });

  it("when tags are revoked concurrently, no tag is lost and the last revocation removes the right", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    const token = await systemBearer(["svc_rights_full_access"]);
    const pair = { subject: lead.sub, object: member.sub, rights: ["SYS_MON"] };
    await assign({ ...pair, tags: ["a", "b", "c", "d", "keep"] }, token);
    const results = await Promise.all(["a", "b", "c", "d"].map((tag) => revoke({ ...pair, tags: [tag] }, token)));
    expect(results.map((r) => r.statusCode)).toEqual([204, 204, 204, 204]);
    expect((await rightsOf(lead.sub, token)).json).toEqual({ [member.sub]: { SYS_MON: ["keep"] } });
    const racing = await Promise.all([
      revoke({ ...pair, tags: ["keep"] }, token),
      assign({ ...pair, tags: ["new"] }, token),
    ]);
    expect(racing.map((r) => r.statusCode)).toEqual([204, 204]);
    // Whatever the order, the grant and its mirror agree and "new" survives.
    expect((await rightsOf(lead.sub, token)).json).toEqual({ [member.sub]: { SYS_MON: ["new"] } });
    expect((await rightsOn(member.sub)).json).toEqual({ [lead.sub]: ["SYS_MON"] });
  });
});

describe("GET /svc/api/v3/rights/of and /on", () => {
  it("when a user token reads its own rights it answers; another's or rights on, 401", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    await assign(
      { subject: lead.sub, object: member.sub, rights: ["SYS_MON"], tags: ["t"] },
      await systemBearer(["svc_rights_full_access"]),
    );
    const own = await rightsOf(lead.sub, await userBearer(lead.sub, ["svc_user_rights"]));
    expect(own.json).toEqual({ [member.sub]: { SYS_MON: ["t"] } });
    const other = await rightsOf(lead.sub, await userBearer(member.sub, ["svc_user_rights"]));
    expect(other.statusCode).toBe(401);
    expect(other.json.desc).toBe("wrong_subject");
    const on = await request("rights", "events/rights/rights-on-user.json", {
      params: { subjectId: member.sub },
      authorization: await userBearer(member.sub, ["svc_user_rights"]),
    });
    expect(on.json.desc).toBe("insufficient_scope");
  });

  it("when a user token reads its own rights, their Query follows the session check; another account is read not at all", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    await assign(
      { subject: lead.sub, object: member.sub, rights: ["SYS_MON"], tags: ["t"] },
      await systemBearer(["svc_rights_full_access"]),
    );
    const token = await userBearer(lead.sub, ["svc_user_rights"]);
    const order: string[] = [];
    const restore = [
      watchCalls(services().sessions, "sessionAndAccount", "session check", order),
      watchCalls(services().rights, "grantsOfParty", (party: { id: string }) => `grants read for ${party.id}`, order),
    ];
    try {
      const own = await rightsOf(lead.sub, token);
      expect(own.json).toEqual({ [member.sub]: { SYS_MON: ["t"] } });
      const grantsSent = `grants read for ${lead.sub} sent`;
      expect(order).toEqual([
        "session check sent",
        "session check answered",
        grantsSent,
        `grants read for ${lead.sub} answered`,
      ]);
      order.length = 0;
      // Another account named: the call is refused before any grant is read.
      expect((await rightsOf(member.sub, token)).json.desc).toBe("wrong_subject");
      expect(order).toEqual(["session check sent", "session check answered"]);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when the party does not exist, it answers 400 with the unknown_* of its kind", async () => {
    const token = await systemBearer(["svc_rights_full_access"]);
    expect((await rightsOf("nobody-at-all", token)).json).toMatchObject({
      error: "unknown_user",
      params: { userId: "nobody-at-all" },
    });
    expect((await rightsOn("nobody-at-all")).json).toMatchObject({ error: "unknown_user" });
    const app = await request("rights", "events/rights/rights-of-app.json", { values: { clientId: "no-such-app" } });
    expect(app.statusCode).toBe(400);
    expect(app.json).toMatchObject({ error: "unknown_rp", params: { rpId: "no-such-app" } });
    const group = await request("rights", "events/rights/rights-on-group.json", {
      params: { groupId: "no-such-group" },
      query: { objectExt: "org" },
    });
    expect(group.json).toMatchObject({ error: "unknown_group", params: { grpId: "no-such-group", profile: "org" } });
    const noProfile = await request("rights", "events/rights/rights-on-group.json", { query: {} });
    expect(noProfile.statusCode).toBe(400);
    expect((noProfile.json.errors as Array<{ pos: string }>)[0].pos).toBe("objectExt");
  });

  it("when a party exists and holds nothing or holds rights, it answers with one Query (the profile shares the partition)", async () => {
    const lead = await seedAccount();
    const token = await systemBearer(["svc_rights_full_access"]);
    await rightsOf(lead.sub, token);
    let before = roundTripCount();
    expect((await rightsOf(lead.sub, token)).json).toEqual({});
    expect(roundTripCount() - before).toBe(1);
    await assign({ subject: lead.sub, object: lead.sub, rights: ["SYS_MON"], tags: ["self"] }, token);
    before = roundTripCount();
    expect((await rightsOf(lead.sub, token)).json).toEqual({ [lead.sub]: { SYS_MON: ["self"] } });
    expect(roundTripCount() - before).toBe(1);
    // A group's head lives in its partition with the rights on it: "none held" is one Query too.
    const groupId = uniqueId("grp-");
    const created = await request("groups", "events/groups/create-group.json", {
      body: { profile: "org", id: groupId },
    });
    expect(created.statusCode).toBe(201);
    before = roundTripCount();
    const onGroup = await request("rights", "events/rights/rights-on-group.json", {
      params: { groupId },
      query: { objectExt: "org" },
    });
    expect(onGroup.json).toEqual({});
    expect(roundTripCount() - before).toBe(1);
  });

  it("when a user holds 1,000 rights (over 1 MB), every page is read and all are listed", async () => {
    const lead = await seedAccount();
    const tags = ["a", "b", "c", "d"].map((t) => t.repeat(256));
    const grants = Array.from({ length: 1000 }, (_, i) => ({
      subject: { kind: "user" as const, id: lead.sub },
      object: { kind: "user" as const, id: `object-${String(i).padStart(4, "0")}` },
      right: "SYS_MON",
      tags,
    }));
    await services().rights.importGrants(grants);
    const token = await systemBearer(["svc_rights_full_access"]);
    const before = roundTripCount();
    const response = await rightsOf(lead.sub, token);
    const pages = roundTripCount() - before;
    expect(response.statusCode).toBe(200);
    const listed = response.json as Record<string, Record<string, string[]>>;
    expect(Object.keys(listed)).toHaveLength(1000);
    expect(listed["object-0999"]).toEqual({ SYS_MON: tags });
    expect(pages).toBeGreaterThan(1);
    expect((await rightsOn("object-0500")).json).toEqual({ [lead.sub]: ["SYS_MON"] });
  });
});

describe("hasRight (for the subordinate password change)", () => {
  it("when asked whether one user holds a right on another, it answers with one GetItem", async () => {
    const lead = await seedAccount();
    const member = await seedAccount();
    await assign(
      { subject: lead.sub, object: member.sub, rights: ["change_password"], tags: ["t"] },
      await systemBearer(["svc_rights_full_access"]),
    );
    const before = roundTripCount();
    expect(await services().rights.hasRight(lead.sub, member.sub, "change_password")).toBe(true);
    expect(roundTripCount() - before).toBe(1);
    expect(await services().rights.hasRight(member.sub, lead.sub, "change_password")).toBe(false);
    expect(await services().rights.hasRight(lead.sub, member.sub, "SYS_MON")).toBe(false);
  });
});
