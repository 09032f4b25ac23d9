import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { decodeProtectedHeader } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { EMERGENCY_WARNING } from "../../lib/domain/keys/keys";
import { keys } from "../../lib/store/keys";
import { ACTIVATION_DELAY_SECONDS } from "../../lib/tokens/rotation";
import { systemBearer, systemToken, uniqueId } from "../support/fixtures";
import { request } from "../support/requests";
import { storedClientEvents } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";

/**
 * The signing keys over the admin API (interface §4.19): states read as the key ring signs
 * and verifies, staged and emergency rotations, and the security event each records.
 */

interface KeyView {
  kid: string;
  alg: string;
  use: string;
  state: "next" | "signing" | "retiring";
  createdAt: number;
  activatesAt: number;
  retiresAt?: number;
  signsUntil?: number;
}

async function listKeys(authorization?: string) {
  const answer = await request("clients", "events/keys/list.json", {
    ...(authorization && { authorization }),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return (answer.json as { keys: KeyView[] }).keys;
}

async function rotate(now: boolean, clientId = uniqueId("ops-")) {
  const authorization = await systemBearer(["svc_api_sys_keys_chg"], clientId);
  return request("clients", "events/keys/rotate.json", { body: { now }, authorization });
}

/** Everything stored under the signing keys' partition, private halves included. */
async function storedKeys() {
  const { Items = [] } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: "PK = :pk",
      ExpressionAttributeValues: { ":pk": keys.signingKeysPartition },
    }),
  );
  return Items;
}

const byState = (list: KeyView[], state: KeyView["state"]) =>
  list
    .filter((k) => k.state === state)
    .map((k) => k.kid)
    .sort();

/** Moves the clock `seconds` on, for Date only: DynamoDB Local and the timers run as they do. */
function later(seconds: number) {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + seconds * 1000 });
}

afterEach(() => {
  vi.useRealTimers();
  // Keys read at the moved clock would look fresh (and their choice of signer final) back in the past.
  services().keyRing.invalidate();
});

describe("GET /svc/admin/api/v3/keys", () => {
  it("when an operator lists the keys, each published key has its state and public facts and no key material", async () => {
    const list = await listKeys();
    const signing = list.filter((k) => k.state === "signing");
    expect(signing.map((k) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    for (const key of list) {
      expect(Object.keys(key).sort()).toEqual(
        expect.arrayContaining(["activatesAt", "alg", "createdAt", "kid", "state", "use"]),
      );
      expect(key.use).toBe("sig");
    }
    // Nothing of a JWK's private (or public) numbers leaves: only the facts listed above.
    expect(JSON.stringify(list)).not.toMatch(/"(d|p|q|dp|dq|qi|x|y|n|e|privateJwk|publicJwk)"/);
    const stored = await storedKeys();
    expect(stored.map((k) => k.kid).sort()).toEqual(expect.arrayContaining(list.map((k) => k.kid).sort()));
  });

  it("when the token lacks svc_api_sys_keys, the list is refused", async () => {
    const answer = await request("clients", "events/keys/list.json", {
      authorization: await systemBearer(["svc_api_sys_uaud"]),
    });
    expect(answer.statusCode).toBe(401);
    expect(answer.json).toMatchObject({ type: "security_error", error: "bad_access_token" });
  });
});

describe("POST /svc/admin/api/v3/keys/rotate", () => {
  it("when an operator rotates staged, the new keys are next until their activation, then sign while the old ones retire", async () => {
    const before = await listKeys();
    const oldSigning = byState(before, "signing");
    const caller = uniqueId("ops-");
    const startedAt = Math.floor(Date.now() / 1000);
    const answer = await rotate(false, caller);
    expect(answer.statusCode, answer.body).toBe(200);
    const rotation = answer.json as {
      mode: string;
      keys: { alg: string; kid: string; activatesAt: number }[];
      retired: string[];
      retiredUntil: number;
      warning?: string;
    };
    expect(rotation.mode).toBe("staged");
    expect(rotation.warning).toBeUndefined();
    expect(rotation.keys.map((k) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    expect(rotation.retired.sort()).toEqual(oldSigning);
    for (const key of rotation.keys) {
      expect(key.activatesAt - startedAt).toBeGreaterThanOrEqual(ACTIVATION_DELAY_SECONDS - 1);
      expect(key.activatesAt - startedAt).toBeLessThanOrEqual(ACTIVATION_DELAY_SECONDS + 5);
    }
    const newKids = rotation.keys.map((k) => k.kid).sort();

    const during = await listKeys();
    expect(byState(during, "next")).toEqual(newKids);
    expect(byState(during, "signing")).toEqual(oldSigning);
    for (const key of during.filter((k) => k.state === "signing")) {
      expect(key.retiresAt).toBe(rotation.retiredUntil);
      expect(key.signsUntil).toBe(rotation.keys.find((k) => k.alg === key.alg)?.activatesAt);
    }
    // The old key still signs: a token issued now carries its kid.
    expect(oldSigning).toContain(decodeProtectedHeader(await systemToken(["svc_api_sys_keys"])).kid);

    // A second staged rotation before the first one's keys sign would make the old keys sign past their retirement.
    const storedBefore = (await storedKeys()).length;
    const again = await rotate(false);
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({ type: "process_error", error: "rotation_under_way" });
    expect((await storedKeys()).length).toBe(storedBefore);

    later(ACTIVATION_DELAY_SECONDS + 5);
    const after = await listKeys(await systemBearer(["svc_api_sys_keys"]));
    expect(byState(after, "signing")).toEqual(newKids);
    expect(byState(after, "retiring")).toEqual(expect.arrayContaining(oldSigning));
    expect(byState(after, "next")).toEqual([]);
    expect(newKids).toContain(decodeProtectedHeader(await systemToken(["svc_api_sys_keys"])).kid);

    // The rotation is the caller's security event, committed with the keys.
    const events = await storedClientEvents(caller);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      sbj: caller,
      sbjType: "its",
      cId: caller,
      type: "keys.rotate",
      result: "ok",
      ip: "203.0.113.10",
      prms: { route: "keys.rotate", now: false, kids: rotation.keys.map((k) => k.kid), retired: rotation.retired },
    });
  });

  it("when an operator rotates now, the new keys sign at once, the answer warns, and a token the old key signed still verifies", async () => {
    const oldToken = `Bearer ${await systemToken(["svc_api_sys_keys"])}`;
    const oldKid = decodeProtectedHeader(oldToken.slice(7)).kid;
    // Every key no rotation has retired yet (after the staged test: its keys, still next) is retired now.
    const live = (await listKeys()).filter((k) => k.retiresAt === undefined).map((k) => k.kid);
    const answer = await rotate(true);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json).toMatchObject({ mode: "now", warning: EMERGENCY_WARNING });
    const rotation = answer.json as { keys: { alg: string; kid: string }[]; retired: string[]; retiredUntil: number };
    expect(rotation.retired.sort()).toEqual(live.sort());

    const list = await listKeys();
    expect(byState(list, "signing")).toEqual(rotation.keys.map((k) => k.kid).sort());
    expect(byState(list, "next")).toEqual([]);
    expect(list.find((k) => k.kid === oldKid)?.state).toBe("retiring");
    for (const kid of rotation.retired)
      expect(list.find((k) => k.kid === kid)).toMatchObject({ state: "retiring", retiresAt: rotation.retiredUntil });

    // Not a revocation: the old key's token verifies until the retired keys leave JWKS.
    expect((await listKeys(oldToken)).length).toBe(list.length);
    // A container that read the keys before keeps signing with the old one for its cache time (60 s).
    services().keyRing.invalidate();
    const fresh = await systemToken(["svc_api_sys_keys"]);
    expect(rotation.keys.map((k) => k.kid)).toContain(decodeProtectedHeader(fresh).kid);

    // Keys a staged rotation had published and this one retired before they signed never sign.
    later(ACTIVATION_DELAY_SECONDS + 5);
    const afterStagedTime = await listKeys(await systemBearer(["svc_api_sys_keys"]));
    expect(byState(afterStagedTime, "signing")).toEqual(rotation.keys.map((k) => k.kid).sort());
    const signer = decodeProtectedHeader(await systemToken(["svc_api_sys_keys"])).kid;
    expect(rotation.keys.map((k) => k.kid)).toContain(signer);
  });

  it("when the token may only read the keys, or the body is not a rotation, nothing is rotated", async () => {
    const before = (await storedKeys()).length;
    const reader = await request("clients", "events/keys/rotate.json", {
      body: { now: true },
      authorization: await systemBearer(["svc_api_sys_keys"]),
    });
    expect(reader.statusCode).toBe(401);
    expect(reader.headers["www-authenticate"]).toContain("svc_api_sys_keys_chg");
    for (const body of [{ now: "yes" }, { now: true, extra: 1 }, "[1]"]) {
      const answer = await request("clients", "events/keys/rotate.json", { body });
      expect(answer.statusCode).toBe(400);
      expect(answer.json).toMatchObject({ type: "input_error" });
    }
    expect((await storedKeys()).length).toBe(before);
  });

  it("when svc-admin rotates, it runs the same use case and records svc-admin's security event", async () => {
    const run = await svcAdmin("keys", "rotate", "--now");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/new ES256 signing key \([^)]*\): \S+/);
    expect(run.stderr).toContain("Emergency rotation");
    const events = await storedClientEvents("svc-admin");
    expect(events.at(-1)).toMatchObject({ type: "keys.rotate", cId: "svc-admin", prms: { now: true } });
  });
});
