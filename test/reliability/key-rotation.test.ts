import { describe, expect, it } from "vitest";
import { ACTIVATION_DELAY_SECONDS } from "../../lib/tokens/rotation";
import { createClient } from "../support/fixtures";
import { useGateway } from "../support/gateway";
import { basicAuthorization } from "../support/requests";
import { svcAdmin } from "../support/svc-admin";
import { startTally } from "../support/tally";

/**
 * Key rotation end to end (issue 43 point 9): an operator rotates with the CLI while the
 * gateway is busy; a verifier polls JWKS as it would after its cache expires. A staged key
 * must be at every verifier, even one that fetched JWKS just before the key appeared and
 * keeps it for the answer's max-age, a safe while before the key signs.
 */

const tally = startTally(import.meta.filename);
const base = useGateway();
/** What a verifier's clock skew and a slow fetch may take out of the margin. */
const SAFETY_SECONDS = 90;

async function published(): Promise<{ kids: string[]; maxAge: number }> {
  const answer = await fetch(`${base()}/svc/.well-known/jwks.json`);
  tally.answered(answer.status);
  const { keys } = (await answer.json()) as { keys: { kid: string }[] };
  const maxAge = Number(/max-age=(\d+)/.exec(answer.headers.get("cache-control") ?? "")?.[1]);
  return { kids: keys.map((k) => k.kid), maxAge };
}

/** Applications asking for tokens, as long as `busy.running` holds. */
function keepBusy(authorization: string, workers: number) {
  const busy = { running: true, done: Promise.resolve() };
  const loop = async () => {
    while (busy.running) {
      const answer = await fetch(`${base()}/svc/oauth/te`, {
        method: "POST",
        headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&scope=svc_api_sys_users",
      });
      tally.answered(answer.status);
      await answer.arrayBuffer();
    }
  };
  busy.done = Promise.all(Array.from({ length: workers }, loop)).then(() => undefined);
  return busy;
}

describe("key rotation through svc-admin, seen from JWKS", { timeout: 120_000 }, () => {
  it("when an operator rotates the keys of a busy service, the new key is in JWKS well before it signs", async () => {
    const first = await svcAdmin("keys", "rotate", "--now");
    expect(first.code, first.stderr).toBe(0);
    const client = await createClient(["svc_api_sys_users"], { grantTypes: ["client_credentials"] });
    const busy = keepBusy(basicAuthorization(client.clientId, client.secret), 6);
    // Every function of the gateway holds the first key in its cache now.
    const before = await published();

    const rotation = await svcAdmin("keys", "rotate");
    expect(rotation.code, rotation.stderr).toBe(0);
    // One new key per algorithm (ES256 access tokens, RS256 ID tokens), staged alike.
    const kids = ["ES256", "RS256"].map(
      (alg) => new RegExp(`new ${alg} signing key \\([^)]*\\): (\\S+)`).exec(rotation.stdout)?.[1] ?? "",
    );
    const activatesAt = Date.parse(/ES256 signs from: (\S+)/.exec(rotation.stdout)?.[1] ?? "") / 1000;
    expect(Date.parse(/RS256 signs from: (\S+)/.exec(rotation.stdout)?.[1] ?? "") / 1000).toBe(activatesAt);
    let firstSeen: number | undefined;
    let maxAge = before.maxAge;
    const deadline = Date.now() + 90_000;
    while (firstSeen === undefined && Date.now() < deadline) {
      const now = await published();
      maxAge = now.maxAge;
      if (kids.every((kid) => kid !== "" && now.kids.includes(kid))) firstSeen = Date.now() / 1000;
      else await new Promise((r) => setTimeout(r, 250));
    }
    busy.running = false;
    await busy.done;

    await tally.invariant(() => {
      for (const kid of kids) expect(before.kids).not.toContain(kid);
      expect(activatesAt - Date.now() / 1000).toBeGreaterThan(ACTIVATION_DELAY_SECONDS - 90);
      expect(firstSeen, "the new key never appeared in JWKS").toBeDefined();
      // A verifier that fetched just before firstSeen holds the old set for maxAge more seconds.
      const margin = activatesAt - ((firstSeen ?? Number.POSITIVE_INFINITY) + maxAge);
      expect(margin).toBeGreaterThanOrEqual(SAFETY_SECONDS);
    });
  });
});
