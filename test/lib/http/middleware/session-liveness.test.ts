import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { services } from "../../../../lib/container";
import { instanceIdOf } from "../../../../lib/domain/accounts/instance-id";
import { createClient, seedAccount } from "../../../support/fixtures";
import { signedIn } from "../../../support/login";
import { request } from "../../../support/requests";
import { spentBy } from "../../../support/round-trips";
import { watchCalls } from "../../../support/watch-calls";

const PASSWORD = "correct horse battery staple";
const SCOPES = ["svc_api_user", "svc_api_uapps", "svc_api_usec_chg"];

async function signIn(sub: string) {
  const client = await createClient(SCOPES);
  return signedIn(client, { username: sub, password: PASSWORD, scope: SCOPES.join(" ") });
}

/** The same claims and header, signed with a key that is not ours. */
async function forgedCopy(token: string): Promise<string> {
  const stranger = await generateKeyPair("ES256");
  return new SignJWT(decodeJwt(token))
    .setProtectedHeader({ ...decodeProtectedHeader(token), alg: "ES256" })
    .sign(stranger.privateKey);
}

describe("session liveness", () => {
  it("when a user token arrives, its session and account come in one read, beside the route's planned items", async () => {
    const account = await seedAccount({}, PASSWORD);
    const tokens = await signIn(account.sub);
    await services().keyRing.jwks();
    const order: string[] = [];
    const restore = [
      watchCalls(services().sessions, "sessionAndAccount", "session check", order),
      watchCalls(services().logins, "snapshot", "login snapshot", order),
    ];
    try {
      const {
        result: response,
        reads,
        writes,
      } = await spentBy(() =>
        request("passwords", "events/passwords/change-user-mode.json", {
          params: { subjectId: instanceIdOf(account.sub) },
          authorization: `Bearer ${tokens.access_token}`,
          body: { current: PASSWORD, password: "a brand new passphrase 2026", resetSessions: false },
        }),
      );
      expect(response.statusCode).toBe(204);
      // The route's login snapshot was planned into the session check, not read again.
      expect(order).toEqual(["session check sent", "session check answered"]);
      // One BatchGetItem (session, account, snapshot); the current password's attempt taken before
      // its hash, then the change's one transaction, which gives the attempt back.
      expect({ reads, writes }).toEqual({ reads: 1, writes: 2 });
    } finally {
      for (const undo of restore) undo();
    }
  });

  it("when the session has ended, the token is refused though its signature holds", async () => {
    const account = await seedAccount({}, PASSWORD);
    const tokens = await signIn(account.sub);
    const { sid } = decodeJwt(tokens.access_token) as { sid: string };
    await services().sessions.endSession(account.sub, sid);
    const response = await request("devices", "events/devices/list-uas.json", {
      params: { subjectId: account.sub },
      authorization: `Bearer ${tokens.access_token}`,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json).toMatchObject({ error: "bad_access_token" });
  });

  it("when a user token is forged, it is refused before anything is read for it", async () => {
    const account = await seedAccount({}, PASSWORD);
    const forged = await forgedCopy((await signIn(account.sub)).access_token);
    await services().keyRing.jwks();
    const order: string[] = [];
    const restore = watchCalls(services().sessions, "sessionAndAccount", "session check", order);
    try {
      const response = await request("devices", "events/devices/list-uas.json", {
        params: { subjectId: account.sub },
        authorization: `Bearer ${forged}`,
      });
      expect(response.statusCode).toBe(401);
      expect(response.json).toMatchObject({ error: "bad_access_token" });
      expect(JSON.stringify(response.json)).not.toContain(account.sub);
      expect(order).toEqual([]);
    } finally {
      restore();
    }
  });
});
