import { describe, expect, it } from "vitest";
import { services } from "../../../../lib/container";
import { registerClient } from "../../../../lib/domain/clients/admin";
import { cachedClientCredentials } from "../../../../lib/domain/clients/credential-cache";
import { roundTripCount } from "../../../../lib/store/client";
import { createClient, uniqueId } from "../../../support/fixtures";

/** A clock the test moves by hand. */
function clock(start = 1_000_000) {
  let at = start;
  return { now: () => at, advance: (seconds: number) => (at += seconds * 1000) };
}

async function readsOf(work: () => Promise<unknown>): Promise<number> {
  const before = roundTripCount();
  await work();
  return roundTripCount() - before;
}

describe("client credentials kept per container", () => {
  it("when a client is asked for again within the ttl, it is answered without reading the table", async () => {
    const { clientId } = await createClient(["svc_api_sys_users"]);
    const time = clock();
    const cache = cachedClientCredentials(services().clients, 10, time.now);
    expect(await readsOf(() => cache.getWithSecrets(clientId))).toBe(1);
    time.advance(9);
    let second: unknown;
    expect(await readsOf(async () => (second = await cache.getWithSecrets(clientId)))).toBe(0);
    expect(second).toMatchObject({ clientId, scopes: ["svc_api_sys_users"] });
    expect((second as { secretHash: string }).secretHash).toMatch(/.+/);
  });

  it("when concurrent requests ask for the same client, the table is read once", async () => {
    const { clientId } = await createClient(["svc_api_sys_users"]);
    const cache = cachedClientCredentials(services().clients, 10, clock().now);
    const reads = await readsOf(() => Promise.all(Array.from({ length: 20 }, () => cache.getWithSecrets(clientId))));
    expect(reads).toBe(1);
  });

  it("when the ttl has passed, a deleted client is no longer found", async () => {
    const { clientId } = await createClient(["svc_api_sys_users"]);
    const time = clock();
    const cache = cachedClientCredentials(services().clients, 10, time.now);
    expect(await cache.getWithSecrets(clientId)).toBeDefined();
    await services().clients.delete(clientId);
    time.advance(11);
    expect(await cache.getWithSecrets(clientId)).toBeUndefined();
  });

  it("when an id was unknown, it stays unknown without a read until the ttl has passed (issue 21 item 7)", async () => {
    const clientId = uniqueId("client-");
    const time = clock();
    const cache = cachedClientCredentials(services().clients, 10, time.now);
    expect(await cache.getWithSecrets(clientId)).toBeUndefined();
    await registerClient(services().clients, { clientId, scopes: ["svc_api_sys_users"] });
    expect(await readsOf(() => cache.getWithSecrets(clientId))).toBe(0);
    time.advance(11);
    expect(await cache.getWithSecrets(clientId)).toMatchObject({ clientId });
  });

  it("when the ttl is a setting asked on each request, turning it to 0 reads the table at once", async () => {
    const { clientId } = await createClient(["svc_api_sys_users"]);
    let ttl = 10;
    const cache = cachedClientCredentials(services().clients, () => ttl, clock().now);
    expect(await readsOf(() => cache.getWithSecrets(clientId))).toBe(1);
    expect(await readsOf(() => cache.getWithSecrets(clientId))).toBe(0);
    ttl = 0;
    expect(await readsOf(() => cache.getWithSecrets(clientId))).toBe(1);
  });

  it("when the ttl is 0, every request reads the table", async () => {
    const { clientId } = await createClient(["svc_api_sys_users"]);
    const cache = cachedClientCredentials(services().clients, 0, clock().now);
    expect(await readsOf(() => cache.getWithSecrets(clientId))).toBe(1);
    expect(await readsOf(() => cache.getWithSecrets(clientId))).toBe(1);
  });
});
