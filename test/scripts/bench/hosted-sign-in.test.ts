import { beforeAll, describe, expect, it } from "vitest";
import { services } from "../../../lib/container";
import { registerClient } from "../../../lib/domain/clients/admin";
import { HOSTED_BENCH_CLIENT, hostedSignInFlow } from "../../../scripts/bench/hosted-sign-in";
import { measureFlow } from "../../../scripts/bench/throughput";
import { seedAccount, uniqueId } from "../../support/fixtures";
import { useGateway } from "../../support/gateway";

/**
 * The bench's hosted sign-in scenario (`npm run bench`, throughput) against the gateway:
 * that each unit really is a form post answered with a code and a code exchange answered
 * with tokens, so the bench measures sign-ins and not error pages. Nothing here is timed.
 */

const PASSWORD = "Bench-Password-2026-correct-horse";
const base = useGateway();
const usernames: string[] = [];

beforeAll(async () => {
  await registerClient(services().clients, HOSTED_BENCH_CLIENT, true);
  for (let i = 0; i < 2; i += 1) {
    const account = await seedAccount(
      { email: { value: `${uniqueId("bench")}@example.com`, verified: true } },
      PASSWORD,
    );
    usernames.push(account.email?.value as string);
  }
});

describe("the hosted sign-in scenario (scripts/bench/hosted-sign-in.ts)", () => {
  it("when a browser has the sign-in page, each unit signs in by form and exchanges the code for tokens", async () => {
    const flow = hostedSignInFlow(base(), usernames, PASSWORD);
    const browser = await flow.prepare();
    const signal = new AbortController().signal;
    for (let unit = 0; unit < 3; unit += 1) await expect(flow.run(browser, signal)).resolves.toBeUndefined();
  });

  it("when the password is wrong, the unit fails with the sign-in form's status", async () => {
    const flow = hostedSignInFlow(base(), usernames, "not-the-password");
    await expect(flow.run(await flow.prepare(), new AbortController().signal)).rejects.toThrow("sign-in 401");
  });

  it("when measured under load, it counts completed units and reports failed ones apart", async () => {
    const load = { connections: 2, seconds: 1 };
    const good = await measureFlow(hostedSignInFlow(base(), usernames, PASSWORD), load);
    expect(good).toMatchObject({ failed: 0, failures: "" });
    expect(good.ok).toBeGreaterThan(0);
    const bad = await measureFlow(hostedSignInFlow(base(), usernames, "not-the-password"), load);
    expect(bad.ok).toBe(0);
    expect(bad.failures).toMatch(/^\d+x sign-in 401$/);
  });
});
