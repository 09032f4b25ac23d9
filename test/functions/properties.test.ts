import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { PROPERTY_LIMITS } from "../../lib/domain/accounts/properties";
import { seedAccount, systemBearer, userToken } from "../support/fixtures";
import { request } from "../support/requests";

async function change(sub: string, body: unknown, authorization?: string) {
  return request("users", "events/users/props-change.json", {
    params: { subjectId: sub },
    body,
    authorization: authorization ?? (await systemBearer(["svc_api_sys_users"])),
  });
}

describe("user properties (interface §4.11)", () => {
  it("when an account has none, it answers an empty map", async () => {
    const account = await seedAccount();
    const response = await request("users", "events/users/props-get.json", {
      params: { subjectId: account.sub },
      authorization: await systemBearer(["svc_api_sys_users"]),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({});
  });

  it("when properties are added and removed, it answers and stores the full resulting map", async () => {
    const account = await seedAccount();
    const first = await change(account.sub, { add: { theme: "dark", visits: 3, beta: true, legacy: "x" } });
    expect(first.json).toEqual({ theme: "dark", visits: 3, beta: true, legacy: "x" });
    const second = await change(account.sub, { add: { visits: 4 }, remove: ["legacy", "never-set"] });
    expect(second.statusCode).toBe(200);
    expect(second.json).toEqual({ theme: "dark", visits: 4, beta: true });
    expect((await services().properties.get(account.sub))?.props).toEqual({ theme: "dark", visits: 4, beta: true });
    // The attribute read does not show them.
    expect(await services().accounts.get(account.sub)).not.toHaveProperty("props");
  });

  it("when a user changes their own properties, it works with svc_api_user", async () => {
    const account = await seedAccount();
    const token = await userToken(account.sub, ["svc_api_user"]);
    const response = await change(account.sub, { add: { lang: "en" } }, `Bearer ${token}`);
    expect(response.json).toEqual({ lang: "en" });
  });

  it.each([
    [{ add: { nested: { a: 1 } } }, "add.nested"],
    [{ add: { list: [1] } }, "add.list"],
    [{ add: { empty: null } }, "add.empty"],
    [{ add: { long: "x".repeat(1025) } }, "add.long"],
    [{ add: { "bad name!": 1 } }, "add.bad name!"],
    [{ add: { constructor: "x" } }, "add.constructor"],
    [{ remove: "theme" }, "remove"],
    [{}, "body"],
  ])("when the body is %j, it answers 400 wrong_values naming %s and stores nothing", async (body, pos) => {
    const account = await seedAccount();
    const response = await change(account.sub, body);
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("wrong_values");
    expect((response.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toContain(pos);
    expect((await services().properties.get(account.sub))?.props).toEqual({});
  });

  it("when a change would exceed the count limit, it answers wrong_value and keeps the map", async () => {
    const account = await seedAccount();
    const many = Object.fromEntries(Array.from({ length: PROPERTY_LIMITS.count }, (_, i) => [`p${i}`, i]));
    expect((await change(account.sub, { add: many })).statusCode).toBe(200);
    const over = await change(account.sub, { add: { one_more: true } });
    expect(over.statusCode).toBe(400);
    expect(over.json).toEqual({
      type: "input_error",
      error: "wrong_value",
      desc: `an account holds at most ${PROPERTY_LIMITS.count} properties`,
      pos: "add",
    });
    expect(Object.keys((await services().properties.get(account.sub))?.props ?? {})).toHaveLength(
      PROPERTY_LIMITS.count,
    );
  });

  it("when two changes race, both land (the second is made from the first's result)", async () => {
    const account = await seedAccount();
    await Promise.all([change(account.sub, { add: { a: 1 } }), change(account.sub, { add: { b: 2 } })]);
    expect((await services().properties.get(account.sub))?.props).toEqual({ a: 1, b: 2 });
  });

  it("when the account does not exist, it answers unknown_user", async () => {
    const response = await change("nobody-here", { add: { a: 1 } });
    expect(response.statusCode).toBe(404);
    expect(response.json.error).toBe("unknown_user");
  });
});
