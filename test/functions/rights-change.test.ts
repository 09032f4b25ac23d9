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
    const object = await seedAccount();
    const token = await asUser(lead.sub);
    const body = { update: [{ subject: lead.sub, object: object.sub, rights: ["SYS_MON"], tags: ["t"] }], delete: [] };
    expect((await change(body, token)).statusCode).toBe(200);
    let events = (await storedItems(lead.sub, "EVENT#")).filter((e) => e.type === "rights.change");
    expect(events).toEqual([
      expect.objectContaining({ result: "ok", ip: "203.0.113.10", prms: { route: "rights.change" } }),
    ]);
    const refused = await change({ update: [{ ...body.update[0], rights: ["NO_SUCH_RIGHT"] }], delete: [] }, token);
    expect(refused.statusCode).toBe(400);
    events = (await storedItems(lead.sub, "EVENT#")).filter((e) => e.type === "rights.change");
    expect(events.map((e) => e.result).sort()).toEqual(["ok", "unknown_right"]);
  });

  it("when update and delete come together, both apply in one transaction (the session check and two round trips)", async () => {
    const lead = await seedAccount();
    const a = await seedAccount();
    const b = await seedAccount();
    const token = await asUser(lead.sub);
    await change(
      {
        update: [{ subject: lead.sub, object: a.sub, rights: ["change_password", "SYS_MON"], tags: ["x", "y"] }],
        delete: [],
      },
      token,
    );
    const before = roundTripCount();
    const response = await change(
      {
        update: [{ subject: lead.sub, object: b.sub, rights: ["change_password"], tags: ["new"] }],
        delete: [{ subject: lead.sub, object: a.sub, rights: ["change_password", "SYS_MON"], tags: ["x"] }],
      },
      token,
    );
    // Plus the user token's session check (one BatchGetItem); the security event rides in the transaction.
    expect(roundTripCount() - before).toBe(3);
    expect(response.statusCode).toBe(200);
    expect(response.json.rights).toEqual([
      { subject: lead.sub, object: b.sub, right: "change_password", tags: ["new"] },
      { subject: lead.sub, object: a.sub, right: "change_password", tags: ["y"] },
      { subject: lead.sub, object: a.sub, right: "SYS_MON", tags: ["y"] },
    ]);
    expect(await rightsOf(lead.sub)).toEqual({
      [a.sub]: { SYS_MON: ["y"], change_password: ["y"] },
      [b.sub]: { change_password: ["new"] },
    });
  });

  it("when one element is invalid, nothing of the call is applied", async () => {
    const lead = await seedAccount();
    const a = await seedAccount();
    const token = await asUser(lead.sub);
    await change(
      { update: [{ subject: lead.sub, object: a.sub, rights: ["SYS_MON"], tags: ["keep"] }], delete: [] },
      token,
    );
    const response = await change(
      {
        update: [{ subject: lead.sub, object: "nobody-here", rights: ["change_password"], tags: ["t"] }],
        delete: [{ subject: lead.sub, object: a.sub, rights: ["SYS_MON"], tags: ["keep"] }],
      },
      token,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      errors: [{ code: "validation_error", desc: "no account has this identifier", params: { userId: "nobody-here" } }],
    });
    expect(await rightsOf(lead.sub)).toEqual({ [a.sub]: { SYS_MON: ["keep"] } });
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
      "a malformed object",
      { object: "bad#object" },
      { code: "validation_error", params: { field: "update.0.object" } },
    ],
    ["an unknown object", { object: "ghost-object" }, { code: "validation_error", params: { userId: "ghost-object" } }],
  ])("when an element has %s, it answers 400 validation_error", async (_, overrides, expected) => {
    const lead = await seedAccount();
    const a = await seedAccount();
    const response = await change(
      { update: [{ subject: lead.sub, object: a.sub, rights: ["SYS_MON"], tags: ["t"], ...overrides }], delete: [] },
      await asUser(lead.sub),
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

  it("when a user token names another user as subject, it answers 401 access_denied and applies nothing", async () => {
    const lead = await seedAccount();
    const other = await seedAccount();
    const response = await change(
      { update: [{ subject: other.sub, object: lead.sub, rights: ["change_password"], tags: ["t"] }], delete: [] },
      await asUser(lead.sub),
    );
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual({ errors: [{ code: "access_denied", desc: "wrong_subject", params: {} }] });
    expect(await rightsOf(other.sub)).toEqual({});
  });

  it("when a system token or the REST password assigns, it is refused; revoking for anyone is allowed", async () => {
    const lead = await seedAccount();
    const a = await seedAccount();
    await change(
      { update: [{ subject: lead.sub, object: a.sub, rights: ["SYS_MON"], tags: ["x", "y"] }], delete: [] },
      await asUser(lead.sub),
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
    const lead = await seedAccount();
    const objects = await Promise.all(Array.from({ length: 20 }, () => seedAccount()));
    const response = await change(
      {
        update: objects.map((o) => ({
          subject: lead.sub,
          object: o.sub,
          rights: ["change_password", "SYS_MON"],
          tags: ["t"],
        })),
        delete: [],
      },
      await asUser(lead.sub),
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
    expect(await rightsOf(lead.sub)).toEqual({});
  });
});
