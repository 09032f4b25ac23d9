import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { roundTripCount } from "../../lib/store/client";
import { createClient, seedAccount, systemBearer, userBearer } from "../support/fixtures";
import { expiredToken } from "../support/forged-tokens";
import { basicAuthorization, request } from "../support/requests";
import { storedItems } from "../support/stored";

function change(body: unknown, authorization: string) {
  return request("rights", "events/rights/change-rights-user.json", { body, authorization });
}

const asUser = (sub: string) => userBearer(sub, ["svc_user_rights"]);
const asRemover = () => systemBearer(["svc_rm_rights"]);

async function rightsOf(sub: string) {
  const { rightsOf } = await import("../../lib/domain/rights/rights");
  return rightsOf(services(), { kind: "user", id: sub });
}

describe("POST /svc/api/v2/users/rights/change", () => {
  it("when the sample events run, the lead gets the right, then an application revokes it", async () => {
    await seedAccount({ sub: "sample-admin", email: undefined, phone_number: undefined });
    await seedAccount({ sub: "sample-user", email: undefined, phone_number: undefined });
    const assigned = await request("rights", "events/rights/change-rights-user.json");
    expect(assigned.statusCode).toBe(200);
    expect(assigned.json).toEqual({
      rights: [{ subject: "sample-admin", object: "sample-user", right: "change_password", tags: ["family"] }],
    });
    expect(await services().rights.hasRight("sample-admin", "sample-user", "change_password")).toBe(true);
    const revoked = await request("rights", "events/rights/change-rights-revoke-system.json");
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json).toEqual({
      rights: [{ subject: "sample-admin", object: "sample-user", right: "change_password", tags: [] }],
    });
    expect(await services().rights.hasRight("sample-admin", "sample-user", "change_password")).toBe(false);
  });

  it("when a user changes rights, one security event is stored with the change; a refused change records one too", async () => {
    const lead = await seedAccount();
    const owner = await seedAccount();
    const token = await asUser(owner.sub);
    const body = { update: [{ subject: lead.sub, object: owner.sub, rights: ["SYS_MON"], tags: ["t"] }], delete: [] };
    expect((await change(body, token)).statusCode).toBe(200);
    let events = (await storedItems(owner.sub, "EVENT#")).filter((e) => e.type === "rights.change");
    expect(events).toEqual([
      expect.objectContaining({ result: "ok", ip: "203.0.113.10", prms: { route: "rights.change" } }),
    ]);
    const refused = await change({ update: [{ ...body.update[0], rights: ["NO_SUCH_RIGHT"] }], delete: [] }, token);
    expect(refused.statusCode).toBe(400);
    events = (await storedItems(owner.sub, "EVENT#")).filter((e) => e.type === "rights.change");
    expect(events.map((e) => e.result).sort()).toEqual(["ok", "unknown_right"]);
  });

  it("when update and delete come together, both apply in one transaction (the session check and two round trips)", async () => {
    const owner = await seedAccount();
    const a = await seedAccount();
    const b = await seedAccount();
    const token = await asUser(owner.sub);
    await change(
      {
        update: [{ subject: a.sub, object: owner.sub, rights: ["change_password", "SYS_MON"], tags: ["x", "y"] }],
        delete: [],
      },
      token,
    );
    const before = roundTripCount();
    const response = await change(
      {
        update: [{ subject: b.sub, object: owner.sub, rights: ["change_password"], tags: ["new"] }],
        delete: [{ subject: a.sub, object: owner.sub, rights: ["change_password", "SYS_MON"], tags: ["x"] }],
      },
      token,
    );
    // Plus the user token's session check (one BatchGetItem); the security event rides in the transaction.
    expect(roundTripCount() - before).toBe(3);
    expect(response.statusCode).toBe(200);
    expect(response.json.rights).toEqual([
      { subject: b.sub, object: owner.sub, right: "change_password", tags: ["new"] },
      { subject: a.sub, object: owner.sub, right: "change_password", tags: ["y"] },
      { subject: a.sub, object: owner.sub, right: "SYS_MON", tags: ["y"] },
    ]);
    expect(await rightsOf(a.sub)).toEqual({ [owner.sub]: { SYS_MON: ["y"], change_password: ["y"] } });
    expect(await rightsOf(b.sub)).toEqual({ [owner.sub]: { change_password: ["new"] } });
  });

  it("when one element is invalid, nothing of the call is applied", async () => {
    const owner = await seedAccount();
    const a = await seedAccount();
    const token = await asUser(owner.sub);
    await change(
      { update: [{ subject: a.sub, object: owner.sub, rights: ["SYS_MON"], tags: ["keep"] }], delete: [] },
      token,
    );
    const response = await change(
      {
        update: [{ subject: "nobody-here", object: owner.sub, rights: ["change_password"], tags: ["t"] }],
        delete: [{ subject: a.sub, object: owner.sub, rights: ["SYS_MON"], tags: ["keep"] }],
      },
      token,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      errors: [{ code: "validation_error", desc: "no account has this identifier", params: { userId: "nobody-here" } }],
    });
    expect(await rightsOf(a.sub)).toEqual({ [owner.sub]: { SYS_MON: ["keep"] } });
  });

  it.each([
    ["an unknown right", { rights: ["NOT_A_RIGHT"] }, { code: "validation_error", params: { right: "NOT_A_RIGHT" } }],
    [
      "a malformed right",
      { rights: ["not a right"] },
      { code: "validation_error", params: { field: "update.0.rights.0" } },
    ],
    ["an empty tag", { tags: [""] }, { code: "validation_error", params: { field: "update.0.tags.0" } }],
    [
      "a tag with a control character",
      { tags: ["a\u0001"] },
      { code: "validation_error", params: { field: "update.0.tags.0" } },
    ],
    ["no tags", { tags: [] }, { code: "validation_error", params: { field: "update.0.tags" } }],
    [
      "a malformed subject",
      { subject: "bad#subject" },
      { code: "validation_error", params: { field: "update.0.subject" } },
    ],
    [
      "an unknown subject",
      { subject: "ghost-subject" },
      { code: "validation_error", params: { userId: "ghost-subject" } },
    ],
  ])("when an element has %s, it answers 400 validation_error", async (_, overrides, expected) => {
    const lead = await seedAccount();
    const owner = await seedAccount();
    const response = await change(
      {
        update: [{ subject: lead.sub, object: owner.sub, rights: ["SYS_MON"], tags: ["t"], ...overrides }],
        delete: [],
      },
      await asUser(owner.sub),
    );
    expect(response.statusCode).toBe(400);
    const errors = response.json.errors as Array<{ code: string; params: Record<string, unknown> }>;
    expect(errors[0]).toMatchObject(expected);
    expect(await rightsOf(lead.sub)).toEqual({});
  });

  it("when both lists are empty, it answers 200 with no rights and changes nothing", async () => {
    const lead = await seedAccount();
    const token = await asUser(lead.sub);
    const before = roundTripCount();
    const response = await change({ update: [], delete: [] }, token);
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ rights: [] });
    // Only the user token's session check and the user-mode security event.
    expect(roundTripCount() - before).toBe(2);
  });

  it("when update or delete is missing or the body is not an object, it answers validation_error", async () => {
    const lead = await seedAccount();
    const token = await asUser(lead.sub);
    for (const body of [{ update: [] }, { delete: [] }, [], { update: [], delete: [], extra: true }]) {
      const response = await change(body, token);
      expect(response.statusCode).toBe(400);
      expect((response.json.errors as Array<{ code: string }>)[0].code).toBe("validation_error");
    }
  });

  it("when a user grants another account a right over its own account, the holder and the owner may each revoke it", async () => {
    const owner = await seedAccount();
    const lead = await seedAccount();
    const grant = { subject: lead.sub, object: owner.sub, rights: ["change_password"], tags: ["a", "b"] };
    expect((await change({ update: [grant], delete: [] }, await asUser(owner.sub))).statusCode).toBe(200);
    expect(await services().rights.hasRight(lead.sub, owner.sub, "change_password")).toBe(true);
    // SPEC 4.3: the holder gives up what it holds; the owner withdraws what it gave.
    const byHolder = await change({ update: [], delete: [{ ...grant, tags: ["a"] }] }, await asUser(lead.sub));
    expect(byHolder.statusCode).toBe(200);
    const byOwner = await change({ update: [], delete: [{ ...grant, tags: ["b"] }] }, await asUser(owner.sub));
    expect(byOwner.json).toEqual({
      rights: [{ subject: lead.sub, object: owner.sub, right: "change_password", tags: [] }],
    });
    expect(await rightsOf(lead.sub)).toEqual({});
  });

  it("when a user grants itself a right over another account, it answers 400 validation_error and applies nothing", async () => {
    const lead = await seedAccount();
    const victim = await seedAccount();
    const response = await change(
      { update: [{ subject: lead.sub, object: victim.sub, rights: ["change_password"], tags: ["t"] }], delete: [] },
      await asUser(lead.sub),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      errors: [
        {
          code: "validation_error",
          desc: "update.0.object: a user token grants rights over its own account only; rights over another account come from a system token",
          params: { field: "update.0.object" },
        },
      ],
    });
    expect(await rightsOf(lead.sub)).toEqual({});
  });

  it("when a user token names another account as subject of a right over a third, it answers 400 validation_error", async () => {
    const caller = await seedAccount();
    const other = await seedAccount();
    const third = await seedAccount();
    await change(
      { update: [{ subject: other.sub, object: third.sub, rights: ["SYS_MON"], tags: ["t"] }], delete: [] },
      await asUser(third.sub),
    );
    for (const list of ["update", "delete"]) {
      const entry = { subject: other.sub, object: third.sub, rights: ["SYS_MON"], tags: ["t"] };
      const response = await change({ update: [], delete: [], [list]: [entry] }, await asUser(caller.sub));
      expect(response.statusCode).toBe(400);
      expect(response.json).toEqual({
        errors: [
          {
            code: "validation_error",
            desc: `${list}.0.subject: with a user token the subject must be the token's owner, or the object its own account`,
            params: { field: `${list}.0.subject` },
          },
        ],
      });
    }
    expect(await rightsOf(other.sub)).toEqual({ [third.sub]: { SYS_MON: ["t"] } });
  });

  it("when a system token or the REST password assigns, it is refused; revoking for anyone is allowed", async () => {
    const lead = await seedAccount();
    const a = await seedAccount();
    await change(
      { update: [{ subject: lead.sub, object: a.sub, rights: ["SYS_MON"], tags: ["x", "y"] }], delete: [] },
      await asUser(a.sub),
    );
    const assignBySystem = await change(
      { update: [{ subject: lead.sub, object: a.sub, rights: ["change_password"], tags: ["t"] }], delete: [] },
      await asRemover(),
    );
    expect(assignBySystem.statusCode).toBe(401);
    expect((assignBySystem.json.errors as Array<{ code: string }>)[0].code).toBe("access_denied");
    const client = await createClient(["svc_groups"], { restPassword: "rest-password-0123456789abcdef0123" });
    const basic = basicAuthorization(client.clientId, "rest-password-0123456789abcdef0123");
    const revokeByBasic = await change(
      { update: [], delete: [{ subject: lead.sub, object: a.sub, rights: ["SYS_MON"], tags: ["x"] }] },
      basic,
    );
    expect(revokeByBasic.statusCode).toBe(200);
    const revokeBySystem = await change(
      { update: [], delete: [{ subject: lead.sub, object: a.sub, rights: ["SYS_MON"], tags: ["y"] }] },
      await asRemover(),
    );
    expect(revokeBySystem.json).toEqual({ rights: [{ subject: lead.sub, object: a.sub, right: "SYS_MON", tags: [] }] });
    expect(await rightsOf(lead.sub)).toEqual({});
  });

  it("when the token expired or has neither permission, it answers 401 access_denied", async () => {
    const lead = await seedAccount();
    const body = { update: [], delete: [] };
    const expired = await change(body, `Bearer ${await expiredToken("svc_rm_rights")}`);
    expect(expired.statusCode).toBe(401);
    expect(expired.json).toEqual({ errors: [{ code: "access_denied", desc: "expired_access_token", params: {} }] });
    const wrong = await change(body, await userBearer(lead.sub, ["svc_api_user"]));
    expect(wrong.json).toEqual({ errors: [{ code: "access_denied", desc: "insufficient_scope", params: {} }] });
  });

  it("when a call would change more than one transaction holds, it says so and applies nothing", async () => {
    const owner = await seedAccount();
    const leads = await Promise.all(Array.from({ length: 20 }, () => seedAccount()));
    const response = await change(
      {
        update: leads.map((lead) => ({
          subject: lead.sub,
          object: owner.sub,
          rights: ["change_password", "SYS_MON"],
          tags: ["t"],
        })),
        delete: [],
      },
      await asUser(owner.sub),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      errors: [
        {
          code: "validation_error",
          desc: "one call may change at most 100 stored items (two per right, one per party and custom right checked, one for a user's security event); this one needs 102: split it",
          params: { items: 102, limit: 100 },
        },
      ],
    });
    expect(await rightsOf(leads[0].sub)).toEqual({});
  });
});
