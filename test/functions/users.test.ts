import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { roundTripCount } from "../../lib/store/client";
import { invoke, sampleEvent, seedAccount, systemBearer, systemToken, uniqueId, userBearer } from "../support/fixtures";
import { expiredToken, forgedTokens } from "../support/forged-tokens";

async function getUser(sub: string, authorization?: string) {
  const event = await sampleEvent("events/users/get-user-system.json");
  event.pathParameters = { subjectId: sub };
  event.rawPath = `/svc/api/v3/users/${sub}`;
  if (authorization === undefined) delete event.headers.authorization;
  else event.headers.authorization = authorization;
  return invoke("users", event);
}

/** A sample event re-pointed at a fresh account, so tests in one table stay independent. */
async function pointedAt(sub: string, path: string) {
  const event = await sampleEvent(path);
  const id = instanceIdOf(sub);
  event.pathParameters = { subjectId: id };
  event.rawPath = `/svc/api/v3/users/${id}`;
  return event;
}

async function changeUser(instanceId: string, body: unknown, authorization: string, contentType = "application/json") {
  const event = await sampleEvent("events/users/change-user-system.json");
  event.pathParameters = { subjectId: instanceId };
  event.rawPath = `/svc/api/v3/users/${instanceId}`;
  event.headers.authorization = authorization;
  event.headers["content-type"] = contentType;
  event.body = typeof body === "string" ? body : JSON.stringify(body);
  return invoke("users", event);
}

describe("GET /svc/api/v3/users/{subjectId}", () => {
  it("when a system token reads an account, it returns the attributes with meta in one round trip", async () => {
    const account = await seedAccount();
    const token = await systemBearer(["svc_api_sys_users"]);
    await getUser(account.sub, token); // warm: signing keys are read once per container
    const before = roundTripCount();
    const response = await getUser(account.sub, token);
    expect(roundTripCount() - before).toBe(1);
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({
      sub: account.sub,
      family_name: "Ivanov",
      given_name: "Ivan",
      middle_name: "Ivanovich",
      locked: false,
      phone_number: { value: account.phone_number?.value, vrf: true },
      email: { value: account.email?.value, vrf: true },
      meta: { instanceId: instanceIdOf(account.sub), unmodifiable: ["sub"] },
    });
  });

  it("when the sample event is invoked for the sample user, it answers 200", async () => {
    await seedAccount({ sub: "sample-user" });
    const response = await invoke("users", await sampleEvent("events/users/get-user-system.json"));
    expect(response.statusCode).toBe(200);
    expect(response.json.sub).toBe("sample-user");
    const userMode = await invoke("users", await sampleEvent("events/users/get-user-user-mode.json"));
    expect(userMode.statusCode).toBe(200);
  });

  it("when the account does not exist, it answers 404 unknown_user", async () => {
    const response = await invoke("users", await sampleEvent("events/users/get-user-unknown.json"));
    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({
      type: "process_error",
      error: "unknown_user",
      desc: "no account has this identifier",
      params: { userId: "nobody-here" },
    });
  });

  it("when a user token reads its own account, it answers 200", async () => {
    const account = await seedAccount();
    const response = await getUser(account.sub, await userBearer(account.sub, ["svc_api_user"]));
    expect(response.statusCode).toBe(200);
    expect(response.json.sub).toBe(account.sub);
  });

  it("when a user token reads another account, it answers 401 bad_access_token", async () => {
    const mine = await seedAccount();
    const theirs = await seedAccount();
    const response = await getUser(theirs.sub, await userBearer(mine.sub, ["svc_api_user"]));
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="svc", error="invalid_token"');
    expect(response.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "wrong_subject" });
  });

  it("when a user token carries only a system permission, it answers 401 insufficient_scope", async () => {
    const account = await seedAccount();
    const response = await getUser(account.sub, await userBearer(account.sub, ["svc_api_sys_users"]));
    expect(response.statusCode).toBe(401);
    expect(response.json.desc).toBe("insufficient_scope");
  });

  it("when the token's scope does not open the route, it answers 401 insufficient_scope", async () => {
    const account = await seedAccount();
    const response = await getUser(account.sub, await systemBearer(["svc_groups"]));
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "insufficient_scope" });
    // RFC 6750 3.1: the challenge names the scope, so a client does not refresh in a loop.
    expect(response.headers["www-authenticate"]).toBe(
      'Bearer realm="svc", error="insufficient_scope", scope="svc_api_sys_users"',
    );
  });

  it("when no token is sent, it answers 401 bad_access_token", async () => {
    const response = await getUser("anyone");
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "missing_access_token" });
    // RFC 6750 3.1: a request without a token gets a challenge without an error attribute.
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="svc"');
  });

  it("when the token has expired, it answers 401 with desc expired_access_token", async () => {
    const account = await seedAccount();
    const response = await getUser(account.sub, `Bearer ${await expiredToken("svc_api_sys_users")}`);
    expect(response.statusCode).toBe(401);
    expect(response.json).toEqual({ type: "security_error", error: "bad_access_token", desc: "expired_access_token" });
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="svc", error="invalid_token"');
  });

  it("when the token is forged or malformed in any of the usual ways, it answers 401 and reveals no account", async () => {
    const account = await seedAccount();
    const forged = await forgedTokens("svc_api_sys_users");
    for (const [how, token] of Object.entries(forged)) {
      const response = await getUser(account.sub, `Bearer ${token}`);
      expect({ how, status: response.statusCode, type: response.json.type, error: response.json.error }).toEqual({
        how,
        status: 401,
        type: "security_error",
        error: "bad_access_token",
      });
      expect(response.body).not.toContain(account.sub);
    }
  });

  it("when the authorization scheme is not Bearer, it answers 401", async () => {
    const response = await getUser("anyone", "Basic YTpi");
    expect(response.statusCode).toBe(401);
    expect(response.json.desc).toBe("unsupported_authorization_scheme");
  });

  it("when the subject id is malformed, it answers 400 input_error naming the field", async () => {
    const response = await getUser("bad#id", await systemBearer(["svc_api_sys_users"]));
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "input_error", error: "wrong_values" });
    expect((response.json.errors as Array<{ pos: string }>)[0].pos).toBe("subjectId");
  });
});

describe("POST /svc/api/v3/users/{instanceId}", () => {
  const chg = () => systemToken(["svc_api_sys_users_chg"]).then((t) => `Bearer ${t}`);

  it("when names change, it stores them, removes a name sent as null and returns the account", async () => {
    const account = await seedAccount();
    const before = roundTripCount();
    const response = await changeUser(
      instanceIdOf(account.sub),
      { given_name: "Pyotr", middle_name: null, sub: account.sub, meta: { instanceId: "ignored" } },
      await chg(),
    );
    // Names are indexed for search: a GetItem for the old values, then one transaction.
    expect(roundTripCount() - before).toBe(2);
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ sub: account.sub, given_name: "Pyotr", family_name: "Ivanov" });
    expect(response.json).not.toHaveProperty("middle_name");
    const stored = await services().accounts.get(account.sub);
    expect(stored?.given_name).toBe("Pyotr");
    expect(stored?.middle_name).toBeUndefined();
    expect(stored?.updatedAt).toBeGreaterThanOrEqual(account.updatedAt);
  });

  it("when the sample change event runs, it changes the name and moves the e-mail claim", async () => {
    const account = await seedAccount();
    const response = await invoke("users", await pointedAt(account.sub, "events/users/change-user-system.json"));
    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ given_name: "Pyotr", email: { value: "pyotr@example.com", vrf: true } });
    // The old address is free again, the new one is taken.
    await expect(seedAccount({ email: account.email })).resolves.toBeDefined();
    await expect(seedAccount({ email: { value: "pyotr@example.com", verified: true } })).rejects.toThrow(/email/);
  });

  it("when sub is changed and a name has the wrong type, it answers 400 naming both and stores nothing", async () => {
    const account = await seedAccount();
    const response = await invoke("users", await pointedAt(account.sub, "events/users/change-user-unmodifiable.json"));
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "input_error", error: "wrong_values" });
    // Schema problems are reported before domain rules run.
    const positions = (response.json.errors as Array<{ pos: string }>).map((e) => e.pos);
    expect(positions).toEqual(["given_name"]);
    expect((await services().accounts.get(account.sub))?.given_name).toBe("Ivan");
  });

  it("when only sub is changed, it is refused as unmodifiable", async () => {
    const account = await seedAccount();
    const response = await changeUser(instanceIdOf(account.sub), { sub: "another" }, await chg());
    expect(response.statusCode).toBe(400);
    expect(response.json.errors).toEqual([
      { type: "input_error", error: "unmodifiable", pos: "sub", desc: "sub cannot be changed" },
    ]);
  });

  it("when an unknown attribute or a wrong type is sent, it lists every problem", async () => {
    const account = await seedAccount();
    const response = await changeUser(
      instanceIdOf(account.sub),
      { nickname: "x", family_name: 7, locked: "yes" },
      await chg(),
    );
    expect(response.statusCode).toBe(400);
    const errors = response.json.errors as Array<{ pos: string; error: string }>;
    expect(errors.map((e) => [e.pos, e.error]).sort()).toEqual([
      ["family_name", "wrong_type"],
      ["locked", "wrong_type"],
      ["nickname", "unknown_field"],
    ]);
    expect((await services().accounts.get(account.sub))?.family_name).toBe("Ivanov");
  });

  it("when the phone number is malformed, it answers contact_use_violation at pos mobile", async () => {
    const account = await seedAccount();
    const response = await changeUser(
      instanceIdOf(account.sub),
      { phone_number: { value: "12ab", vrf: true } },
      await chg(),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json).toEqual({
      type: "input_error",
      error: "contact_use_violation",
      desc: "phone number must be (country code)XXXXXXXXXX",
      pos: "mobile",
    });
  });

  it("when the new e-mail belongs to another account, it answers contact_use_violation and keeps both", async () => {
    const owner = await seedAccount();
    const other = await seedAccount();
    const response = await changeUser(
      instanceIdOf(other.sub),
      { email: { value: owner.email?.value.toUpperCase(), vrf: true } },
      await chg(),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ error: "contact_use_violation", pos: "email" });
    expect((await services().accounts.get(other.sub))?.email?.value).toBe(other.email?.value);
  });

  it("when two requests race for one phone number, exactly one account gets it", async () => {
    const a = await seedAccount();
    const b = await seedAccount();
    const phone = `7${String(Date.now()).slice(-10)}`;
    const token = await chg();
    const results = await Promise.all(
      [a, b].map((acc) => changeUser(instanceIdOf(acc.sub), { phone_number: { value: phone, vrf: true } }, token)),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    const owners = [await services().accounts.get(a.sub), await services().accounts.get(b.sub)].filter(
      (acc) => acc?.phone_number?.value === phone,
    );
    expect(owners).toHaveLength(1);
  });

  it("when a user changes their own name, it answers 200; a user cannot lock or set a verified contact", async () => {
    const account = await seedAccount();
    const token = await userBearer(account.sub, ["svc_api_user_chg"]);
    const ok = await changeUser(instanceIdOf(account.sub), { family_name: "Petrova" }, token);
    expect(ok.statusCode).toBe(200);
    expect(ok.json.family_name).toBe("Petrova");
    const refused = await changeUser(
      instanceIdOf(account.sub),
      { locked: false, email: { value: "a@b.cd", vrf: true } },
      token,
    );
    expect(refused.statusCode).toBe(400);
    const positions = (refused.json.errors as Array<{ pos: string }>).map((e) => e.pos).sort();
    expect(positions).toEqual(["email", "locked"]);
  });

  it("when a user token names another account's instanceId, it answers 401 wrong_subject", async () => {
    const mine = await seedAccount();
    const theirs = await seedAccount();
    const response = await changeUser(
      instanceIdOf(theirs.sub),
      { family_name: "X" },
      await userBearer(mine.sub, ["svc_api_user_chg"]),
    );
    expect(response.statusCode).toBe(401);
    expect(response.json.desc).toBe("wrong_subject");
    expect((await services().accounts.get(theirs.sub))?.family_name).toBe("Ivanov");
  });

  it("when a system token locks an account, the lock is stored and the account's sessions end", async () => {
    const account = await seedAccount();
    const user = await userBearer(account.sub, ["svc_api_user"]);
    expect(await services().sessions.listSessions(account.sub)).toHaveLength(1);
    const response = await changeUser(instanceIdOf(account.sub), { locked: true }, await chg());
    expect(response.json.locked).toBe(true);
    expect((await services().accounts.get(account.sub))?.locked).toBe(true);
    expect(await services().sessions.listSessions(account.sub)).toEqual([]);
    // Unlocking does not bring them back, and ends nothing.
    const unlocked = await changeUser(instanceIdOf(account.sub), { locked: false }, await chg());
    expect(unlocked.json.locked).toBe(false);
    expect((await changeUser(instanceIdOf(account.sub), { family_name: "X" }, user)).statusCode).toBe(401);
  });

  it("when the account does not exist, it answers 404 and creates nothing", async () => {
    const ghost = uniqueId("ghost-");
    const response = await changeUser(instanceIdOf(ghost), { family_name: "X" }, await chg());
    expect(response.statusCode).toBe(404);
    expect(response.json.error).toBe("unknown_user");
    expect(await services().accounts.get(ghost)).toBeUndefined();
  });

  it("when the body is malformed JSON, has the wrong content type, is empty or over 1 MB, it answers 400", async () => {
    const account = await seedAccount();
    const id = instanceIdOf(account.sub);
    const token = await chg();
    const malformed = await changeUser(id, "{not json", token);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json).toEqual({
      type: "input_error",
      error: "malformed_body",
      desc: "the body is not valid JSON",
    });
    const wrongType = await changeUser(id, { family_name: "X" }, token, "text/plain");
    expect(wrongType.json).toMatchObject({ error: "wrong_content_type" });
    const empty = await changeUser(id, "", token);
    expect(empty.statusCode).toBe(400);
    const emptyObject = await changeUser(id, {}, token);
    expect(emptyObject.statusCode).toBe(400);
    const huge = await changeUser(id, { family_name: "x".repeat(1024 * 1024 + 1) }, token);
    expect(huge.statusCode).toBe(400);
    expect(huge.json.error).toBe("body_too_large");
    const array = await changeUser(id, [1, 2], token);
    expect(array.statusCode).toBe(400);
    expect((await services().accounts.get(account.sub))?.family_name).toBe("Ivanov");
  });

  it("when the path holds a subject id instead of an instanceId, it answers 400", async () => {
    const account = await seedAccount();
    const response = await changeUser(account.sub, { family_name: "X" }, await chg());
    expect(response.statusCode).toBe(400);
    expect(response.json.type).toBe("input_error");
  });
});
