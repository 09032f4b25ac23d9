import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { createClient, seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { request } from "../support/requests";

function create(body: unknown, authorization?: string) {
  return request("rights", "events/rights/catalogue-create.json", { body, authorization });
}

function remove(name: string, authorization?: string) {
  return request("rights", "events/rights/catalogue-delete.json", { params: { name }, authorization });
}

function read(name: string) {
  return request("rights", "events/rights/catalogue-get.json", { params: { name } });
}

function assign(body: unknown, authorization: string) {
  return request("rights", "events/rights/assign-rights.json", { body, authorization });
}

const BUILTIN = ["change_password", "ORG_ADMIN", "APP_ADMIN", "SYS_MON"];

describe("/svc/admin/api/v3/rights", () => {
  it("when nothing was added, the four rights of interface §2.4 are listed as built in", async () => {
    const response = await request("rights", "events/rights/catalogue-list.json");
    expect(response.statusCode).toBe(200);
    const list = response.json as unknown as Array<{ name: string; builtin: boolean }>;
    expect(list.filter((r) => r.builtin).map((r) => r.name)).toEqual(BUILTIN);
    expect((await read("change_password")).json).toEqual({
      name: "change_password",
      description: "The subject may set the password of the object account (interface §4.2).",
      subjectTypes: ["user"],
      objectTypes: ["user"],
      builtin: true,
    });
  });

  it("when the sample events run, a right is created, read, listed and deleted", async () => {
    const created = await request("rights", "events/rights/catalogue-create.json");
    expect(created.statusCode).toBe(201);
    expect(created.json).toEqual({
      name: "BILLING_VIEW",
      description: "May read the bills of the object",
      subjectTypes: ["user", "its"],
      objectTypes: ["user", "grps"],
      builtin: false,
    });
    expect((await read("BILLING_VIEW")).json).toEqual(created.json);
    const list = (await request("rights", "events/rights/catalogue-list.json")).json as unknown as Array<{
      name: string;
    }>;
    expect(list.map((r) => r.name)).toContain("BILLING_VIEW");
    const deleted = await request("rights", "events/rights/catalogue-delete.json");
    expect(deleted.statusCode).toBe(204);
    expect((await read("BILLING_VIEW")).statusCode).toBe(404);
  });

  it("when a created right is assigned, its kinds are enforced; deleted, it cannot be assigned but can be revoked", async () => {
    const name = `R_${uniqueId()}`;
    const token = await systemBearer(["svc_rights_full_access"]);
    await create({ name, subjectTypes: ["its"], objectTypes: ["user"] }, token);
    const { clientId } = await createClient();
    const user = await seedAccount();
    const toUser = { subject: clientId, subjectType: "its", object: user.sub, rights: [name], tags: ["t"] };
    expect((await assign(toUser, token)).statusCode).toBe(204);
    const wrongKind = await assign({ subject: user.sub, object: user.sub, rights: [name], tags: ["t"] }, token);
    expect(wrongKind.json).toEqual({
      type: "process_error",
      error: "unknown_right",
      desc: `right ${name} applies to subjects of kind its and objects of kind user, not to a user subject and a user object`,
      params: { right: name, subjectType: "user", objectType: "user" },
    });
    expect((await remove(name, token)).statusCode).toBe(204);
    const afterDelete = await assign({ ...toUser, tags: ["again"] }, token);
    expect(afterDelete.json).toMatchObject({ error: "unknown_right", params: { right: name } });
    const revoke = await request("rights", "events/rights/revoke-tag.json", { body: toUser, authorization: token });
    expect(revoke.statusCode).toBe(204);
    expect(await services().rights.grantsOf({ kind: "its", id: clientId })).toEqual([]);
  });

  it("when a right is created twice or with a built-in name, it answers 409 right_exists", async () => {
    const name = `R_${uniqueId()}`;
    const token = await systemBearer(["svc_rights_full_access"]);
    expect((await create({ name, subjectTypes: ["user"], objectTypes: ["user"] }, token)).statusCode).toBe(201);
    const again = await create({ name, subjectTypes: ["its"], objectTypes: ["its"] }, token);
    expect(again.statusCode).toBe(409);
    expect(again.json).toEqual({
      type: "process_error",
      error: "right_exists",
      desc: "a right of this name is already in the catalogue",
      params: { right: name },
    });
    expect((await read(name)).json.subjectTypes).toEqual(["user"]);
    expect((await create({ name: "SYS_MON", subjectTypes: ["user"], objectTypes: ["user"] }, token)).statusCode).toBe(
      409,
    );
  });

  it("when a built-in or unknown right is deleted, it answers 400 builtin_right or 404 unknown_right", async () => {
    const token = await systemBearer(["svc_rights_full_access"]);
    const builtin = await remove("change_password", token);
    expect(builtin.statusCode).toBe(400);
    expect(builtin.json).toEqual({
      type: "process_error",
      error: "builtin_right",
      desc: "built-in rights cannot be deleted",
      params: { right: "change_password" },
    });
    const unknown = await remove("NEVER_THERE", token);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json).toMatchObject({ error: "unknown_right", params: { right: "NEVER_THERE" } });
  });

  it("when the definition is malformed, it answers 400 naming each field", async () => {
    const response = await create(
      { name: "bad name", subjectTypes: ["grps"], objectTypes: [], description: 5, extra: 1 },
      await systemBearer(["svc_rights_full_access"]),
    );
    expect(response.statusCode).toBe(400);
    const positions = (response.json.errors as Array<{ pos: string }>).map((e) => e.pos).sort();
    expect(positions).toEqual(["description", "extra", "name", "objectTypes", "subjectTypes.0"]);
    const badParam = await read("bad name");
    expect(badParam.statusCode).toBe(400);
  });

  it("when a user token with svc_user_rights calls, it may read the catalogue but not change it", async () => {
    const user = await seedAccount();
    const token = await userBearer(user.sub, ["svc_user_rights"]);
    const list = await request("rights", "events/rights/catalogue-list.json", { authorization: token });
    expect(list.statusCode).toBe(200);
    const created = await create({ name: "USER_MADE", subjectTypes: ["user"], objectTypes: ["user"] }, token);
    expect(created.statusCode).toBe(401);
    expect(created.json.desc).toBe("insufficient_scope");
    expect((await remove("SYS_MON", token)).statusCode).toBe(401);
  });
});
