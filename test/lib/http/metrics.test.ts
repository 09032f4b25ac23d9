import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setEnvDefaults } from "../../../lib/config";
import { loginDeps, services } from "../../../lib/container";
import { BRUTE_FORCE, THROTTLED } from "../../../lib/domain/login/brute-force";
import { passwordGrant } from "../../../lib/domain/login/password-grant";
import type { MetricsPort } from "../../../lib/domain/metrics";
import { createClient, invoke, sampleEvent, seedAccount } from "../../support/fixtures";
import { passwordLogin } from "../../support/login";
import { basicCredentials } from "../../support/requests";

const PASSWORD = "correct horse battery staple 42";

/** One metric of an EMF line: its name, unit, value and the dimensions CloudWatch files it under. */
interface Emitted {
  name: string;
  unit: string;
  value: unknown;
  dimensions: Record<string, unknown>;
  namespace: string;
}

/** The metrics in the EMF lines a spied stdout was given (the `_aws` blocks). */
function emitted(spy: { mock: { calls: unknown[][] } }): Emitted[] {
  const lines = spy.mock.calls
    .map(([text]) => String(text).trim())
    .filter((text) => text.startsWith("{"))
    .map((text) => JSON.parse(text) as Record<string, unknown> & { _aws?: unknown });
  return lines.flatMap((line) => {
    const aws = line._aws as
      | {
          CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
        }
      | undefined;
    if (!aws) return [];
    return aws.CloudWatchMetrics.flatMap((block) =>
      block.Metrics.map((metric) => {
        expect(block.Dimensions).toHaveLength(1);
        const dimensions = Object.fromEntries(block.Dimensions[0].map((key) => [key, line[key]]));
        return {
          name: metric.Name,
          unit: metric.Unit,
          value: line[metric.Name],
          dimensions,
          namespace: block.Namespace,
        };
      }),
    );
  });
}

describe("metrics (CloudWatch EMF on stdout)", () => {
  let out: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    setEnvDefaults({});
    out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    setEnvDefaults({});
  });

  it("when a password grant succeeds, it counts the sign-in, the token issued and the request of its route", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const response = await passwordLogin(client, { username: account.sub, password: PASSWORD, scope: "svc_api_user" });
    expect(response.statusCode).toBe(200);
    const metrics = emitted(out);
    const base = { service: "svc-identity", function: "token" };
    expect(metrics).toContainEqual({
      name: "SignIn",
      unit: "Count",
      value: 1,
      dimensions: { ...base, method: "password", result: "ok" },
      namespace: "SvcIdentity",
    });
    expect(metrics).toContainEqual(
      expect.objectContaining({ name: "TokensIssued", value: 1, dimensions: { ...base, grant: "password" } }),
    );
    const route = { ...base, route: expect.stringMatching(/^token\./) };
    expect(metrics).toContainEqual(expect.objectContaining({ name: "Requests", value: 1, dimensions: route }));
    expect(metrics).toContainEqual(expect.objectContaining({ name: "ServerErrors", value: 0, dimensions: route }));
    expect(metrics).toContainEqual(
      expect.objectContaining({ name: "Latency", unit: "Milliseconds", value: expect.any(Number), dimensions: route }),
    );
    expect(metrics.some((m) => m.name === "SignInFailed")).toBe(false);
    // Nothing secret is a dimension value.
    expect(JSON.stringify(out.mock.calls)).not.toContain(account.sub);
    expect(JSON.stringify(out.mock.calls)).not.toContain(PASSWORD);
  });

  it("when the password is wrong, it counts a failed sign-in and issues no token", async () => {
    const client = await createClient(["svc_api_user"]);
    const account = await seedAccount({}, PASSWORD);
    const response = await passwordLogin(client, { username: account.sub, password: "wrong", scope: "svc_api_user" });
    expect(response.statusCode).toBe(400);
    const metrics = emitted(out);
    const base = { service: "svc-identity", function: "token" };
    expect(metrics).toContainEqual(
      expect.objectContaining({
        name: "SignIn",
        value: 1,
        dimensions: { ...base, method: "password", result: "invalid_credential" },
      }),
    );
    expect(metrics).toContainEqual(expect.objectContaining({ name: "SignInFailed", value: 1, dimensions: base }));
    expect(metrics.some((m) => m.name === "TokensIssued")).toBe(false);
    // A 4xx is not a server error.
    expect(metrics).toContainEqual(expect.objectContaining({ name: "ServerErrors", value: 0 }));
  });

  it("when a client_credentials grant succeeds, it counts the token by grant and no sign-in", async () => {
    const client = await createClient(["svc_api_sys_users", "svc_api_sys_users_chg"]);
    const event = await sampleEvent("events/token/client-credentials-basic.json", {
      clientBasic: basicCredentials(client.clientId, client.secret),
    });
    const response = await invoke("token", event);
    expect(response.statusCode).toBe(200);
    const metrics = emitted(out);
    expect(metrics).toContainEqual({
      name: "TokensIssued",
      unit: "Count",
      value: 1,
      dimensions: { service: "svc-identity", function: "token", grant: "client_credentials" },
      namespace: "SvcIdentity",
    });
    expect(metrics.some((m) => m.name.startsWith("SignIn"))).toBe(false);
    expect(metrics).toContainEqual(expect.objectContaining({ name: "Requests", value: 1 }));
  });

  it("when a route fails unexpectedly, the shaped 500 counts as a server error", async () => {
    const event = await sampleEvent("events/token/client-credentials-basic.json", {
      clientBasic: basicCredentials("client-of-a-failing-table", "secret"),
    });
    // Bad input is a 4xx; a store that fails is the 5xx this needs.
    vi.spyOn(services().clientCredentials, "getWithSecrets").mockRejectedValue(new Error("table unreachable"));
    const response = await invoke("token", event);
    expect(response.statusCode).toBe(500);
    expect(emitted(out)).toContainEqual(expect.objectContaining({ name: "ServerErrors", value: 1 }));
  });
});

describe("sign-in counts through the domain's metrics port", () => {
  it("when guesses pile up until the waits refuse one, it counts each failure and the throttled refusal", async () => {
    const counted: [string, Record<string, string> | undefined][] = [];
    const metrics: MetricsPort = { count: (name, dims) => counted.push([name, dims]) };
    const client = await createClient(["svc_api_user"]);
    const record = await services().clients.getWithSecrets(client.clientId);
    const account = await seedAccount({}, PASSWORD);
    const now = Math.floor(Date.now() / 1000);
    const attempt = (password: string) =>
      passwordGrant(
        record as never,
        { username: account.sub, password, scope: "svc_api_user", ip: "203.0.113.9", userAgent: "t" },
        { ...loginDeps(), metrics, now: () => now },
      );
    for (let i = 0; i < BRUTE_FORCE.FREE_FAILURES; i++) await expect(attempt("wrong")).rejects.toThrow();
    await expect(attempt(PASSWORD)).rejects.toMatchObject({ description: THROTTLED });

    const wrong = ["SignIn", { method: "password", result: "invalid_credential" }];
    expect(counted).toEqual([
      ...Array.from({ length: BRUTE_FORCE.FREE_FAILURES }, () => [wrong, ["SignInFailed", undefined]]).flat(),
      ["SignIn", { method: "password", result: "throttled" }],
      ["SignInFailed", undefined],
      ["SignInThrottled", { method: "password" }],
    ]);
  });
});
