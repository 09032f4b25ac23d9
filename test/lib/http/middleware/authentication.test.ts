import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { Account } from "../../../../lib/domain/accounts/account";
import { instanceIdOf } from "../../../../lib/domain/accounts/instance-id";
import { passwordGrant } from "../../../../lib/domain/login/password-grant";
import { authentication } from "../../../../lib/http/middleware/authentication";
import type { SvcContext } from "../../../../lib/http/request-state";
import { loginDeps, services } from "../../../../lib/services";
import { roundTripCount } from "../../../../lib/store/client";
import { createClient, invoke, sampleEvent, seedAccount, systemToken, uniqueId } from "../../../support/fixtures";
import { prepareRequest, request } from "../../../support/requests";
import { watchCalls } from "../../../support/watch-calls";

const PASSWORD = "correct horse battery staple";
const SCOPES = "svc_api_user svc_api_uapps";
const UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

async function signIn(account: Account) {
  const client = await createClient(SCOPES.split(" "));
  const record = await services().clients.getWithSecrets(client.clientId);
  return passwordGrant(
    record as never,
    { username: account.sub, password: PASSWORD, scope: SCOPES, ip: "198.51.100.7", userAgent: UA },
    loginDeps(),
  );
}

/** The same claims and header, signed with a key that is not ours. */
async function forgedCopy(token: string): Promise<string> {
  const stranger = await generateKeyPair("ES256");
  const header = decodeProtectedHeader(token);
  return new SignJWT(decodeJwt(token))
    .setProtectedHeader({ alg: "ES256", typ: header.typ, kid: header.kid })
    .sign(stranger.privateKey);
}

/** A container that must read the signing keys before it can check a token (cold, or a minute on). */
function coldKeys(order: string[]): () => void {
  services().keyRing.invalidate();
  return watchCalls(services().signingKeys, "listPublic", "keys read", order);
}

async function freshRegistration(values: Record<string, string> = {}) {
  const id = uniqueId("");
  return sampleEvent("events/registration/register-with-codes.json", {
    sub: uniqueId("reg-"),
    email: `${id}@example.com`,
    phone: `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`,
    ...values,
  });
}

describe("authentication on a container that must read the signing keys", () => {
  it("when a user token arrives, its session check goes out beside the keys' read and the call succeeds", async () => {
    const account = await seedAccount({}, PASSWORD);
    const tokens = await signIn(account);
    const order: string[] = [];
    const restore = [coldKeys(order), watchCalls(services().sessions, "sessionAndAccount", "session check", order)];
    try {
      const before = roundTripCount();
      const response = await request("devices", "events/devices/list-uas.json", {
        params: { subjectId: account.sub },
        authorization: `Bearer ${tokens.access_token}`,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json).toHaveLength(1);
      expect(order.indexOf("session check sent")).toBeLessThan(order.indexOf("keys read answered"));
      expect(order.filter((step) => step === "session check sent")).toHaveLength(1);
      // The keys, the session check, the devices Query beside it, the security event.
      expect(roundTripCount() - before).toBe(4);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when a forged user token names a real session, the early read is awaited, dropped and the call refused", async () => {
    const account = await seedAccount({}, PASSWORD);
    const forged = await forgedCopy((await signIn(account)).access_token);
    const order: string[] = [];
    // The session check answers well after the keys: the refusal must still wait for it.
    const restore = [coldKeys(order), watchCalls(services().sessions, "sessionAndAccount", "session check", order, 50)];
    try {
      const response = await request("devices", "events/devices/list-uas.json", {
        params: { subjectId: account.sub },
        authorization: `Bearer ${forged}`,
      });
      expect(response.statusCode).toBe(401);
      expect(response.json).toMatchObject({ error: "bad_access_token" });
      expect(JSON.stringify(response.json)).not.toContain(account.email?.value);
      expect(order).toContain("session check answered");
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when the keys are held, nothing is read for a forged token", async () => {
    const account = await seedAccount({}, PASSWORD);
    const forged = await forgedCopy((await signIn(account)).access_token);
    await services().keyRing.jwks();
    const order: string[] = [];
    const restore = watchCalls(services().sessions, "sessionAndAccount", "session check", order);
    try {
      const before = roundTripCount();
      const response = await request("devices", "events/devices/list-uas.json", {
        params: { subjectId: account.sub },
        authorization: `Bearer ${forged}`,
      });
      expect(response.statusCode).toBe(401);
      expect(order).toEqual([]);
      // Only the refusal's security event is written.
      expect(roundTripCount() - before).toBeLessThanOrEqual(1);
    } finally {
      restore();
    }
  });

  it("when a registration arrives, its uniqueness read goes out beside the keys' read and is not made twice", async () => {
    const event = await freshRegistration();
    const order: string[] = [];
    const restore = [coldKeys(order), watchCalls(services().registrations, "check", "uniqueness read", order)];
    try {
      const response = await invoke("registration", event);
      expect(response.statusCode).toBe(200);
      expect(response.json.context).toEqual(expect.any(String));
      expect(order.indexOf("uniqueness read sent")).toBeLessThan(order.indexOf("keys read answered"));
      expect(order.filter((step) => step === "uniqueness read sent")).toHaveLength(1);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when the early uniqueness read finds the e-mail taken, the registration is refused with 409", async () => {
    const taken = await seedAccount();
    const event = await freshRegistration({ email: taken.email?.value as string });
    const order: string[] = [];
    const restore = [coldKeys(order), watchCalls(services().registrations, "check", "uniqueness read", order)];
    try {
      const response = await invoke("registration", event);
      expect(response.statusCode).toBe(409);
      expect(JSON.stringify(response.json)).toContain("email");
      expect(order.filter((step) => step === "uniqueness read sent")).toHaveLength(1);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when the body is refused after the early read went out, that read is awaited and dropped", async () => {
    const event = await freshRegistration();
    const body = JSON.parse(event.body as string);
    body.user.credentials.password = "qwerty123";
    event.body = JSON.stringify(body);
    const order: string[] = [];
    const restore = [coldKeys(order), watchCalls(services().registrations, "check", "uniqueness read", order, 50)];
    try {
      const response = await invoke("registration", event);
      expect(response.statusCode).toBe(400);
      expect(JSON.stringify(response.json)).toContain("the password is one of the most common passwords");
      expect(order).toContain("uniqueness read answered");
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when a system password change arrives, the account snapshot goes out beside the keys' read, once", async () => {
    const account = await seedAccount({}, PASSWORD);
    // Prepared first: filling the sample's token signs one, which reads the keys.
    const event = await prepareRequest("events/passwords/change-system-generated-sms.json", {
      params: { subjectId: instanceIdOf(account.sub) },
    });
    const order: string[] = [];
    const restore = [coldKeys(order), watchCalls(services().logins, "accountSnapshot", "snapshot read", order)];
    try {
      const response = await invoke("passwords", event);
      expect(response.statusCode).toBe(204);
      expect(order.indexOf("snapshot read sent")).toBeLessThan(order.indexOf("keys read answered"));
      expect(order.filter((step) => step === "snapshot read sent")).toHaveLength(1);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it.each([
    ["users", "events/users/get-user-system.json", "accounts", "get"],
    ["security", "events/security/auth-get.json", "accounts", "get"],
    ["federation", "events/federation/list-links-system.json", "federation", "linksOfAccount"],
  ] as const)(
    "when %s reads what its path names, that read goes out beside the keys' read, once",
    async (fn, sample, storeName, method) => {
      const account = await seedAccount();
      const event = await prepareRequest(sample, { params: { subjectId: account.sub } });
      const order: string[] = [];
      const store = services()[storeName] as unknown as Record<string, unknown>;
      const restore = [coldKeys(order), watchCalls(store, method, "first read", order)];
      try {
        const response = await invoke(fn, event);
        expect(response.statusCode).toBe(200);
        expect(JSON.stringify(response.json)).not.toContain("error");
        expect(order.indexOf("first read sent")).toBeLessThan(order.indexOf("keys read answered"));
        expect(order.filter((step) => step === "first read sent")).toHaveLength(1);
      } finally {
        for (const undo of restore) undo();
      }
    },
  );

  it("when the account a security read names does not exist, the read beside the keys is not made again", async () => {
    const event = await prepareRequest("events/security/auth-get.json", { params: { subjectId: uniqueId("ghost-") } });
    const order: string[] = [];
    const restore = [coldKeys(order), watchCalls(services().accounts, "get", "account read", order)];
    try {
      const response = await invoke("security", event);
      expect(response.statusCode).toBe(404);
      expect(order.filter((step) => step === "account read sent")).toHaveLength(1);
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when the audit is read, the events go out beside the keys' read, once, and a refused query reads nothing", async () => {
    const account = await seedAccount();
    const params = { subjectId: instanceIdOf(account.sub) };
    const event = await prepareRequest("events/audit/events.json", { params, query: { rql: "limit(5)" } });
    const refused = await prepareRequest("events/audit/events.json", { params, query: { rql: "limit(" } });
    const order: string[] = [];
    const restore = [coldKeys(order), watchCalls(services().events, "list", "events read", order)];
    try {
      const response = await invoke("audit", event);
      expect(response.statusCode).toBe(200);
      expect(Array.isArray(response.json)).toBe(true);
      expect(order.indexOf("events read sent")).toBeLessThan(order.indexOf("keys read answered"));
      expect(order.filter((step) => step === "events read sent")).toHaveLength(1);

      services().keyRing.invalidate();
      order.length = 0;
      const answer = await invoke("audit", refused);
      expect(answer.statusCode).toBe(400);
      expect(order).not.toContain("events read sent");
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when a route's plan fails, a forged token still gets its 401 and a real one its principal", async () => {
    const failing = () => {
      throw new TypeError("plan failed");
    };
    const middleware = authentication({}, { "test.route": failing });
    const run = async (token: string) => {
      services().keyRing.invalidate();
      const request = {
        event: { headers: { authorization: `Bearer ${token}` } } as unknown as APIGatewayProxyEventV2,
        context: {
          svc: { route: { id: "test.route", auth: "bearer" }, requestId: "r", params: {}, query: {} },
        } as unknown as SvcContext,
        response: undefined,
        error: undefined,
        internal: {},
      };
      await middleware.before?.(request as never);
      return request.context.svc;
    };
    const token = await systemToken(["svc_groups"]);
    await expect(run(await forgedCopy(token))).rejects.toMatchObject({ status: 401, error: "bad_access_token" });
    const state = await run(token);
    expect(state.principal).toMatchObject({ mode: "system", clientId: "test-client" });
    expect(state.alongSession).toBeUndefined();
  });
});
