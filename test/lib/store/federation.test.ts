import { describe, expect, it } from "vitest";
import { services } from "../../../lib/container";
import type { StoredTokens } from "../../../lib/domain/federation/records";
import { seedAccount, uniqueId } from "../../support/fixtures";

const store = () => services().federation;

async function storedTokens(): Promise<StoredTokens> {
  const account = await seedAccount();
  const owner = { sub: account.sub, fpType: "oidc", fpName: "mock", sid: uniqueId("ext-") };
  await store().link({ ...owner, tokens: { accessToken: "sealed-a", refreshToken: "sealed-r", expiresOn: 100 } }, 1);
  return (await store().tokensOf(owner)) as StoredTokens;
}

describe("refresh leases on stored tokens", () => {
  it("when several callers take the lease on the same revision at once, exactly one gets it", async () => {
    const record = await storedTokens();
    const now = Math.floor(Date.now() / 1000);
    const taken = await Promise.all(
      Array.from({ length: 5 }, (_, i) => store().takeRefreshLease(record, `lease-${i}`, now + 10, now)),
    );
    expect(taken.filter(Boolean)).toHaveLength(1);
  });

  it("when the revision changed since it was read, the lease is refused", async () => {
    const record = await storedTokens();
    const now = Math.floor(Date.now() / 1000);
    expect(await store().takeRefreshLease(record, "first", now + 10, now)).toBe(true);
    expect(await store().saveRefreshed(record, "first", { accessToken: "sealed-b", expiresOn: 200 }, now)).toBe(true);
    expect(await store().takeRefreshLease(record, "stale", now + 10, now)).toBe(false);
    const latest = (await store().tokensOf(record)) as StoredTokens;
    expect(latest).toMatchObject({ accessToken: "sealed-b", refreshToken: "sealed-r", expiresOn: 200 });
    expect(latest.revision).not.toBe(record.revision);
    expect(latest.leaseUntil).toBeUndefined();
  });

  it("when a lease has run out, another caller may take it and the old holder can no longer write", async () => {
    const record = await storedTokens();
    const now = Math.floor(Date.now() / 1000);
    expect(await store().takeRefreshLease(record, "dead", now - 1, now - 20)).toBe(true);
    expect(await store().takeRefreshLease(record, "alive", now + 10, now)).toBe(true);
    expect(await store().saveRefreshed(record, "dead", { accessToken: "late", expiresOn: 300 }, now)).toBe(false);
    await store().dropTokens(record, "dead");
    expect(await store().tokensOf(record)).toBeDefined();
    await store().dropTokens(record, "alive");
    expect(await store().tokensOf(record)).toBeUndefined();
  });
});

describe("bind states", () => {
  it("when a state is taken, it is gone: a second take finds nothing", async () => {
    const state = {
      id: uniqueId("st-"),
      sub: "s",
      clientId: "c",
      fpType: "oidc",
      fpName: "mock",
      callback: "https://app.example/cb",
      redirectUri: "https://api.example.com/cb",
      codeVerifier: "v",
      nonce: "n",
      expiresAt: Math.floor(Date.now() / 1000) + 60,
    };
    await store().saveState(state);
    const [first, second] = await Promise.all([store().takeState(state.id, 0), store().takeState(state.id, 0)]);
    expect([first, second].filter(Boolean)).toEqual([state]);
    expect(await store().takeState(state.id, 0)).toBeUndefined();
  });
});
