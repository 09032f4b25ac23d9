import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { BRUTE_FORCE, LIMITS } from "../../lib/domain/login/brute-force";
import { roundTripCount, roundTripKinds } from "../../lib/store/client";
import { ENTITY, keys } from "../../lib/store/keys";
import { createClient, invoke, sampleEvent, seedAccount, uniqueId } from "../support/fixtures";
import { useBindingProvider, useSettings } from "../support/oauth-provider";
import { basicAuthorization } from "../support/requests";
import { storedItem } from "../support/stored";
import { startTally } from "../support/tally";

/**
 * Issue 21 items 2, 3, 4 and the login part of 7, as an attacker tries them: parallel
 * guesses at the brute-force limits, a forged X-Forwarded-For, anonymous HTTP Basic
 * logins that cost a hash each, a second factor skipped over HTTP Basic, and answers
 * that tell a known account or client from an unknown one.
 */

const tally = startTally(import.meta.filename);
const PASSWORD = "Login-Attack-Password-9";
const WRONG = "invalid username or password";
const CALLBACK = "https://app.example/fa-done";

const bound = useBindingProvider(CALLBACK);

const hour = () => Math.floor(Date.now() / 1000 / 3600);

/** A counter as earlier failures left it (the attack starts just under a limit). */
async function presetCounter(key: { PK: string; SK: string }, entity: string, count: number) {
  await documentClient().send(
    new PutCommand({
      TableName: config().tableName,
      Item: { ...key, entity, schemaVersion: 1, count, expiresAt: Math.floor(Date.now() / 1000) + 3600 },
    }),
  );
}

/** An address of this test alone, so no other test's failures count against it. */
function freshAddress(): string {
  return `198.18.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
}

/** A password grant the application relays; `forwarded` null: it sends no X-Forwarded-For. */
async function login(
  client: { clientId: string; secret: string },
  username: string,
  password: string,
  connection = freshAddress(),
  forwarded: string | null = freshAddress(),
) {
  const event = await sampleEvent("events/token/password-grant.json", {
    clientBasic: Buffer.from(`${client.clientId}:${client.secret}`).toString("base64"),
    username: "x",
    password: "x",
  });
  event.body = new URLSearchParams({ grant_type: "password", scope: "svc_api_user", username, password }).toString();
  if (forwarded === null) delete event.headers["x-forwarded-for"];
  else event.headers["x-forwarded-for"] = forwarded;
  event.requestContext.http.sourceIp = connection;
  const answer = await invoke("token", event);
  tally.answered(answer.statusCode);
  return answer;
}

async function bind(authorization: string, connection = freshAddress(), forwarded?: string) {
  const event = await sampleEvent("events/federation/bind-user-basic.json", { clientBasic: "unused" });
  event.headers.authorization = authorization;
  if (forwarded) event.headers["x-forwarded-for"] = forwarded;
  else delete event.headers["x-forwarded-for"];
  event.requestContext.http.sourceIp = connection;
  event.body = JSON.stringify({ fp: "oidc:mock", callback: CALLBACK, clientId: bound.web.clientId });
  const answer = await invoke("federation", event);
  tally.answered(answer.statusCode);
  return answer;
}

/** The refusal's text in the route's shape: OAuth's error_description, or the v2 body's first desc. */
const descriptionOf = (answer: { json: Record<string, unknown> }) =>
  (answer.json.error_description ??
    (answer.json.errors as { desc?: string }[] | undefined)?.[0]?.desc ??
    answer.json.desc) as string;

describe("parallel guesses at the brute-force limits (issue 21 item 2)", () => {
  it("when 8 wrong passwords arrive at once one failure before the wait, only one is judged", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    await presetCounter(keys.loginFailures(account.sub), ENTITY.loginFailures, BRUTE_FORCE.FREE_FAILURES - 1);
    const answers = await Promise.all(Array.from({ length: 8 }, () => login(client, account.sub, "wrong-guess")));
    tally.badInput(answers.length);
    await tally.invariant(() => {
      expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 400));
      expect(answers.filter((a) => descriptionOf(a) === WRONG)).toHaveLength(1);
    });
    await tally.invariant(async () => {
      expect((await storedItem(keys.loginFailures(account.sub)))?.count).toBe(BRUTE_FORCE.FREE_FAILURES);
    });
  });

  it("when 8 wrong passwords arrive at once one failure under the hourly cap, only one is judged and the cap holds", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const key = keys.loginFailuresHour(account.sub, hour());
    await presetCounter(key, ENTITY.loginFailures, BRUTE_FORCE.HOURLY_CAP - 1);
    const answers = await Promise.all(Array.from({ length: 8 }, () => login(client, account.sub, "wrong-guess")));
    tally.badInput(answers.length);
    await tally.invariant(() => expect(answers.filter((a) => descriptionOf(a) === WRONG)).toHaveLength(1));
    await tally.invariant(async () => expect((await storedItem(key))?.count).toBe(BRUTE_FORCE.HOURLY_CAP));
  });

  it("when 8 wrong passwords arrive at once one failure under the consecutive cap (NIST: at most 100), only one is judged; then even the right password is refused", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    await presetCounter(keys.loginFailures(account.sub), ENTITY.loginFailures, BRUTE_FORCE.CONSECUTIVE_CAP - 1);
    const answers = await Promise.all(Array.from({ length: 8 }, () => login(client, account.sub, "wrong-guess")));
    tally.badInput(answers.length);
    await tally.invariant(() => expect(answers.filter((a) => descriptionOf(a) === WRONG)).toHaveLength(1));
    await tally.invariant(async () =>
      expect((await storedItem(keys.loginFailures(account.sub)))?.count).toBe(BRUTE_FORCE.CONSECUTIVE_CAP),
    );
    // Once the wait the last failure set is over, the cap alone still refuses.
    await presetCounter(keys.loginFailures(account.sub), ENTITY.loginFailures, BRUTE_FORCE.CONSECUTIVE_CAP);
    const right = await login(client, account.sub, PASSWORD);
    await tally.invariant(() => {
      expect(right.statusCode).toBe(400);
      expect(descriptionOf(right)).toMatch(/too many failed logins/);
    });
  });

  it("when the right password comes after parallel guesses, its own attempt is given back", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const ok = await login(client, account.sub, PASSWORD);
    expect(ok.statusCode, ok.body).toBe(200);
    await tally.invariant(async () => {
      expect((await storedItem(keys.loginFailuresHour(account.sub, hour())))?.count ?? 0).toBe(0);
      expect(await storedItem(keys.loginFailures(account.sub))).toBeUndefined();
    });
  });
});

describe("a count that moved between the login's read and its take", () => {
  it.each([
    ["read as free, now at the wait", BRUTE_FORCE.FREE_FAILURES - 1, 0, true],
    ["read at the wait, now free again", 5, BRUTE_FORCE.FREE_FAILURES - 1, false],
  ])("when it was %s, the take follows the count as it stands", async (_, stored, seen, guarded) => {
    const account = await seedAccount({}, PASSWORD);
    await presetCounter(keys.loginFailures(account.sub), ENTITY.loginFailures, stored);
    const now = Math.floor(Date.now() / 1000);
    const attempt = await services().logins.takeAttempt(
      { counted: { sub: account.sub }, addresses: [freshAddress()], now, hour: hour(), seenConsecutive: seen },
      LIMITS,
    );
    await tally.invariant(async () => {
      expect(attempt).toMatchObject({ guarded });
      expect((await storedItem(keys.loginFailures(account.sub)))?.count).toBe(stored + 1);
    });
  });
});

describe("the per-address limit and anonymous hashing (issue 21 item 3)", () => {
  it("when the connection's address is at its cap, a forged X-Forwarded-For does not open a login", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const connection = freshAddress();
    await presetCounter(keys.ipFailures(connection, hour()), ENTITY.ipFailures, BRUTE_FORCE.IP_HOURLY_CAP);
    const viaApp = await login(client, account.sub, PASSWORD, connection, freshAddress());
    const viaBasic = await bind(basicAuthorization(account.sub, PASSWORD), connection, freshAddress());
    tally.badInput(2);
    await tally.invariant(() => {
      expect(viaApp.statusCode, viaApp.body).toBe(400);
      expect(descriptionOf(viaApp)).toMatch(/too many failed logins/);
      expect(viaBasic.statusCode, viaBasic.body).toBe(401);
      expect(descriptionOf(viaBasic)).toMatch(/too many failed logins/);
    });
  });

  it("when an authenticated application forwards an address at its cap, that address counts too", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const forwarded = freshAddress();
    await presetCounter(keys.ipFailures(forwarded, hour()), ENTITY.ipFailures, BRUTE_FORCE.IP_HOURLY_CAP);
    const answer = await login(client, account.sub, PASSWORD, freshAddress(), forwarded);
    await tally.invariant(() => expect(descriptionOf(answer)).toMatch(/too many failed logins/));
    // Anonymous HTTP Basic may not name an address to blame: its forwarded one is not counted.
    const anonymous = await bind(basicAuthorization(account.sub, PASSWORD), freshAddress(), forwarded);
    await tally.invariant(() => expect(anonymous.statusCode, anonymous.body).toBe(200));
  });

  it("when a client trusted to relay forwards its user's address, only that address counts, not its back end's", async () => {
    const client = await createClient(["svc_api_user"], { trustRelayedAddress: true });
    const account = await seedAccount({}, PASSWORD);
    const backEnd = freshAddress();
    const user = freshAddress();
    const wrong = await login(client, account.sub, "wrong-guess", backEnd, user);
    tally.badInput();
    await tally.invariant(async () => {
      expect(descriptionOf(wrong)).toBe(WRONG);
      expect(await storedItem(keys.ipFailures(backEnd, hour()))).toBeUndefined();
      expect((await storedItem(keys.ipFailures(user, hour())))?.count).toBe(1);
    });
    // The back end's address at its cap no longer shuts out the users it relays.
    await presetCounter(keys.ipFailures(backEnd, hour()), ENTITY.ipFailures, BRUTE_FORCE.IP_HOURLY_CAP);
    const right = await login(client, account.sub, PASSWORD, backEnd, freshAddress());
    await tally.invariant(async () => {
      expect(right.statusCode, right.body).toBe(200);
      expect((await storedItem(keys.ipFailures(backEnd, hour())))?.count).toBe(BRUTE_FORCE.IP_HOURLY_CAP);
    });
  });

  it("when a client trusted to relay forwards no address, or the connection's own, the connection counts", async () => {
    const client = await createClient(["svc_api_user"], { trustRelayedAddress: true });
    const account = await seedAccount({}, PASSWORD);
    const connection = freshAddress();
    const bare = await login(client, account.sub, "wrong-guess", connection, null);
    const same = await login(client, account.sub, "wrong-guess", connection, connection);
    tally.badInput(2);
    await tally.invariant(async () => {
      expect(descriptionOf(bare)).toBe(WRONG);
      expect(descriptionOf(same)).toBe(WRONG);
      expect((await storedItem(keys.ipFailures(connection, hour())))?.count).toBe(2);
    });
    await presetCounter(keys.ipFailures(connection, hour()), ENTITY.ipFailures, BRUTE_FORCE.IP_HOURLY_CAP);
    const capped = await login(client, account.sub, PASSWORD, connection, null);
    tally.badInput();
    await tally.invariant(() => expect(descriptionOf(capped)).toMatch(/too many failed logins/));
  });

  it("when 12 anonymous HTTP Basic logins arrive at once, only a few are hashed and the rest are told to come back", async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => bind(basicAuthorization(uniqueId("nobody-"), "some guess"))),
    );
    tally.badInput(answers.length);
    await tally.invariant(() => {
      for (const answer of answers) expect([401, 429], answer.body).toContain(answer.statusCode);
      expect(answers.some((a) => a.statusCode === 429)).toBe(true);
      const hashed = answers.filter((a) => descriptionOf(a) === "wrong login or password").length;
      expect(hashed).toBeGreaterThan(0);
      expect(hashed).toBeLessThanOrEqual(4);
    });
  });
});

describe("HTTP Basic user logins and the checks after the password (issue 21 item 4)", () => {
  it.each([
    ["a second factor", { requiredFactor: 2 as const }, /second factor/],
    ["a password change", { needPasswordChange: true }, /password change/],
  ])(
    "when the account needs %s, the right password alone is refused in the route's shape",
    async (_, overrides, why) => {
      const account = await seedAccount(overrides, PASSWORD);
      const answer = await bind(basicAuthorization(account.sub, PASSWORD));
      tally.badInput();
      await tally.invariant(() => {
        expect(answer.statusCode, answer.body).toBe(401);
        expect(answer.json).toMatchObject({ errors: [{ code: "access_denied" }] });
        expect(descriptionOf(answer)).toMatch(why);
      });
    },
  );
});

describe("enumeration through login answers (issue 21 item 7)", () => {
  it("when 31 wrong passwords name a real account and an unknown one, the answers read the same", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const unknown = uniqueId("nobody-");
    const last: Record<string, string> = {};
    const spent: Record<string, unknown> = {};
    for (const name of [account.sub, unknown]) {
      for (let done = 0; done < BRUTE_FORCE.FREE_FAILURES; done += 10) {
        await Promise.all(Array.from({ length: 10 }, () => login(client, name, "wrong-guess")));
      }
      // With the client's record cached, one of the two measures could meet its expiry and read it
      // again: the cache is off while they are taken, so each reads the client once.
      const settings = JSON.parse(process.env.SVC_CONFIG_JSON ?? "{}");
      useSettings({ ...settings, clients: { cacheSeconds: 0 } });
      try {
        const before = roundTripKinds();
        last[name] = descriptionOf(await login(client, name, "wrong-guess"));
        const after = roundTripKinds();
        spent[name] = { reads: after.reads - before.reads, writes: after.writes - before.writes };
      } finally {
        useSettings(settings);
      }
    }
    tally.badInput(2 * (BRUTE_FORCE.FREE_FAILURES + 1));
    await tally.invariant(() => {
      expect(last[account.sub]).toMatch(/too many failed logins/);
      expect(last[unknown]).toBe(last[account.sub]);
      // The same work too: the client's read and the one login read, no write.
      expect(spent[unknown]).toEqual(spent[account.sub]);
      expect(spent[account.sub]).toEqual({ reads: 2, writes: 0 });
    });
  }, 120_000);

  it("when an unknown client id is asked again, it costs what a known one does: no read of the table", async () => {
    const known = await createClient(["svc_api_user"]);
    const unknown = uniqueId("no-such-client-");
    const cache = services().clientCredentials;
    await cache.getWithSecrets(known.clientId);
    await cache.getWithSecrets(unknown);
    const reads = (id: string) => async () => {
      const before = roundTripCount();
      await cache.getWithSecrets(id);
      return roundTripCount() - before;
    };
    tally.badInput();
    await tally.invariant(async () => {
      expect(await reads(known.clientId)()).toBe(0);
      expect(await reads(unknown)()).toBe(0);
    });
  });
});
