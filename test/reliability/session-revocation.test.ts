import { describe, expect, it } from "vitest";
import { createClient, invoke, sampleEvent, seedAccount } from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { basicCredentials, readOwnAccount, request } from "../support/requests";
import { startTally } from "../support/tally";

/**
 * A revoked session's tokens stay refused: a signed-in user's calls, refresh grants
 * (also the same refresh token twice, which ends the session as a leak) and a revocation
 * (sessions reset, consent withdrawal) race; once the revocation has answered, every
 * access and refresh token of that session seen so far is refused, none accepted.
 */

const tally = startTally(import.meta.filename);
const PASSWORD = "Revocation-Race-Password-42";
const SCOPES = "svc_api_user svc_api_usec svc_api_usec_chg";
const ROUNDS = 4;

interface Tokens {
  access: string;
  refresh: string;
}

async function signIn() {
  const account = await seedAccount({}, PASSWORD);
  const client = await createClient(SCOPES.split(" "));
  const response = await passwordLogin(client, { scope: SCOPES, username: account.sub, password: PASSWORD });
  tally.answered(response.statusCode);
  expect(response.statusCode, response.body).toBe(200);
  const tokens: Tokens = {
    access: response.json.access_token as string,
    refresh: response.json.refresh_token as string,
  };
  return { account, client, tokens };
}

async function readCounted(sub: string, access: string) {
  const result = await readOwnAccount(sub, access);
  tally.answered(result.statusCode);
  return result;
}

async function refresh(client: { clientId: string; secret: string }, token: string) {
  const event = await sampleEvent("events/token/refresh-token-grant.json", {
    clientBasic: basicCredentials(client.clientId, client.secret),
    refreshToken: token,
  });
  const result = await invoke("token", event);
  tally.answered(result.statusCode);
  return result;
}

/** Fires reads and refreshes (the same refresh token `refreshes` times) beside `revoke`. */
async function race(
  signedIn: Awaited<ReturnType<typeof signIn>>,
  revoke: () => Promise<{ statusCode: number }>,
  refreshes: number,
) {
  const { account, client, tokens } = signedIn;
  const seen: Tokens[] = [tokens];
  const reads = Array.from({ length: 8 }, () => readCounted(account.sub, tokens.access));
  const refreshed = Array.from({ length: refreshes }, async () => {
    const answer = await refresh(client, tokens.refresh);
    if (answer.statusCode === 200) {
      seen.push({ access: answer.json.access_token as string, refresh: answer.json.refresh_token as string });
    }
    return answer;
  });
  const revoked = await revoke();
  tally.answered(revoked.statusCode);
  const answers = await Promise.all([...reads, ...refreshed]);
  for (const answer of answers) expect(answer.statusCode, answer.body).not.toBe(500);
  return { seen, revoked, refreshAnswers: await Promise.all(refreshed) };
}

async function expectAllRefused(sub: string, client: { clientId: string; secret: string }, seen: Tokens[]) {
  for (const { access, refresh: refreshToken } of seen) {
    const read = await readCounted(sub, access);
    await tally.invariant(() => expect(read.statusCode, read.body).toBe(401));
    const renewed = await refresh(client, refreshToken);
    await tally.invariant(() => {
      expect(renewed.statusCode, renewed.body).toBe(400);
      expect(renewed.json.error).toBe("invalid_grant");
    });
  }
}

describe("revoked sessions under concurrent use", () => {
  it("when the same refresh token is presented several times at once, at most one rotates and afterwards every token of the session is refused", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const signedIn = await signIn();
      const { seen, refreshAnswers } = await race(signedIn, async () => ({ statusCode: 204 }), 4);
      await tally.invariant(() =>
        expect(refreshAnswers.filter((a) => a.statusCode === 200).length).toBeLessThanOrEqual(1),
      );
      // Every refresh answered: the reuse has been seen, so the session has ended.
      await expectAllRefused(signedIn.account.sub, signedIn.client, seen);
    }
  });

  it("when the user resets sessions while the session is used and refreshed, its tokens are refused once the reset answered", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const signedIn = await signIn();
      const { account } = signedIn;
      const { seen, revoked } = await race(
        signedIn,
        () =>
          request("devices", "events/devices/sessions-reset.json", {
            params: { subjectId: account.sub },
            values: { keepDeviceId: "another-device" },
            authorization: `Bearer ${signedIn.tokens.access}`,
          }),
        1,
      );
      expect(revoked.statusCode).toBe(204);
      await expectAllRefused(account.sub, signedIn.client, seen);
    }
  });

  it("when the user withdraws the application's consent while the session is used and refreshed, its tokens are refused once that answered", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const signedIn = await signIn();
      const { account, client } = signedIn;
      const { seen, revoked } = await race(
        signedIn,
        async () => {
          // By the application's back end (system token of the samples), as an operator would.
          const list = await request("audit", "events/audit/acls-list.json", { params: { subjectId: account.sub } });
          const consent = (list.json as unknown as Array<{ id: string; client_id: string }>).find(
            (c) => c.client_id === client.clientId,
          );
          return request("audit", "events/audit/acls-delete.json", {
            params: { subjectId: account.sub, id: consent?.id ?? "none" },
            values: { consentId: consent?.id ?? "none" },
          });
        },
        1,
      );
      expect(revoked.statusCode).toBe(204);
      await expectAllRefused(account.sub, client, seen);
    }
  });
});
