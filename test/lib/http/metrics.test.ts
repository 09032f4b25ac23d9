import { SESClient, SendEmailCommand } from "@aws-sdk/client-ses";
import { PublishCommand, SNSClient } from "@aws-sdk/client-sns";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setEnvDefaults } from "../../../lib/config";
import { loginDeps, services } from "../../../lib/container";
import { BRUTE_FORCE, THROTTLED } from "../../../lib/domain/login/brute-force";
import { passwordGrant } from "../../../lib/domain/login/password-grant";
import type { MetricsPort } from "../../../lib/domain/metrics";
import { withLogContext } from "../../../lib/log";
import { powertoolsMetrics } from "../../../lib/metrics";
import { createClient, invoke, sampleEvent, seedAccount, uniqueId } from "../../support/fixtures";
import { scriptHook, sleep, useScriptedHooks } from "../../support/hooks";
import { passwordLogin } from "../../support/login";
import { useSettings } from "../../support/oauth-provider";
import { basicCredentials } from "../../support/requests";

const PASSWORD = "correct horse battery staple 42";

// The production courier, with SNS and SES answered at the SDK boundary, so a send can fail;
// the container builds it on first use, after this.
process.env.SVC_MESSAGES = "aws";
setEnvDefaults({});
const sns = mockClient(SNSClient);
const ses = mockClient(SESClient);

/** One metric of an EMF line: its name, unit, value and the dimensions CloudWatch files it under. */
interface Emitted {
  name: string;
  unit: string;
  value: unknown;
  dimensions: Record<string, unknown>;
  namespace: string;
}

/** The metrics in the EMF lines a spied stdout was given (the `_aws` blocks), once per dimension set. */
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
      block.Metrics.flatMap((metric) =>
        block.Dimensions.map((set) => ({
          name: metric.Name,
          unit: metric.Unit,
          value: line[metric.Name],
          dimensions: Object.fromEntries(set.map((key) => [key, line[key]])),
          namespace: block.Namespace,
        })),
      ),
    );
  });
}

/** Metrics on, stdout captured per test; SNS and SES answer unless a test says otherwise. */
function useEmfCapture(): { out: ReturnType<typeof vi.spyOn> } {
  const captured = {} as { out: ReturnType<typeof vi.spyOn> };
  beforeEach(() => {
    vi.stubEnv("POWERTOOLS_METRICS_DISABLED", "false");
    setEnvDefaults({});
    captured.out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    sns.on(PublishCommand).resolves({ MessageId: "sms-1" });
    ses.on(SendEmailCommand).resolves({ MessageId: "mail-1" });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    sns.reset();
    ses.reset();
    useSettings({});
  });
  return captured;
}

/** A password grant of a new account, with `password` as its guess. */
async function passwordSignIn(password: string) {
  const client = await createClient(["svc_api_user"]);
  const account = await seedAccount({}, PASSWORD);
  const response = await passwordLogin(client, { username: account.sub, password, scope: "svc_api_user" });
  return { account, response };
}

describe("metrics (CloudWatch EMF on stdout)", () => {
  const captured = useEmfCapture();

  it("when a password grant succeeds, it counts the sign-in, the token issued and the request of its route", async () => {
    const { account, response } = await passwordSignIn(PASSWORD);
    expect(response.statusCode).toBe(200);
    const metrics = emitted(captured.out);
    const base = { service: "svc-identity", function: "token" };
    expect(metrics).toContainEqual({
      name: "SignIn",
      unit: "Count",
      value: 1,
      dimensions: { ...base, method: "password", result: "ok" },
      namespace: "SvcIdentity",
    });
    // Filed under the function alone too, which alarms sum over functions.
    expect(metrics).toContainEqual(expect.objectContaining({ name: "SignIn", value: 1, dimensions: base }));
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
    expect(JSON.stringify(captured.out.mock.calls)).not.toContain(account.sub);
    expect(JSON.stringify(captured.out.mock.calls)).not.toContain(PASSWORD);
  });

  it("when the password is wrong, it counts a failed sign-in and issues no token", async () => {
    const { response } = await passwordSignIn("wrong");
    expect(response.statusCode).toBe(400);
    const metrics = emitted(captured.out);
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
    const metrics = emitted(captured.out);
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

  it("counts again and again, for one function and another, one line each and no warning", async () => {
    const warned = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    for (const fn of ["token", "token", "hosted", "token"]) {
      await withLogContext({ requestId: uniqueId("req"), function: fn }, async () =>
        powertoolsMetrics.count("TokensIssued", { grant: "password" }),
      );
    }
    const lines = (captured.out.mock.calls as unknown[][])
      .map(([text]) => String(text))
      .filter((text) => text.includes("TokensIssued"));
    expect(lines).toHaveLength(4);
    expect(lines.map((line) => (JSON.parse(line) as { function: string }).function)).toEqual([
      "token",
      "token",
      "hosted",
      "token",
    ]);
    expect(warned).not.toHaveBeenCalled();
  });

  it("when a route fails unexpectedly, the shaped 500 counts as a server error", async () => {
    const event = await sampleEvent("events/token/client-credentials-basic.json", {
      clientBasic: basicCredentials("client-of-a-failing-table", "secret"),
    });
    // Bad input is a 4xx; a store that fails is the 5xx this needs.
    vi.spyOn(services().clientCredentials, "getWithSecrets").mockRejectedValue(new Error("table unreachable"));
    const response = await invoke("token", event);
    expect(response.statusCode).toBe(500);
    expect(emitted(captured.out)).toContainEqual(expect.objectContaining({ name: "ServerErrors", value: 1 }));
  });
});

describe("registrations, messages and hooks (CloudWatch EMF on stdout)", () => {
  const captured = useEmfCapture();
  const base = { service: "svc-identity", function: "registration" };
  const contacts = () => {
    const id = uniqueId("");
    return { sub: `metrics-${id}`, email: `${id}@example.com`, phone: `7${String(Date.now()).slice(-10)}` };
  };

  it("when a registration sends its codes, each message counts as sent by channel and name, and the registration as pending", async () => {
    const values = contacts();
    const response = await invoke(
      "registration",
      await sampleEvent("events/registration/register-with-codes.json", values),
    );
    expect(response.statusCode, response.body).toBe(200);
    const metrics = emitted(captured.out);
    for (const channel of ["sms", "email"])
      expect(metrics).toContainEqual(
        expect.objectContaining({
          name: "MessageSent",
          value: 1,
          dimensions: { ...base, channel, message: "confirmation-code" },
        }),
      );
    expect(metrics.filter((m) => m.name === "MessageSent" && m.dimensions.channel === undefined)).toEqual([
      expect.objectContaining({ dimensions: base }),
      expect.objectContaining({ dimensions: base }),
    ]);
    expect(metrics).toContainEqual(
      expect.objectContaining({ name: "Registration", value: 1, dimensions: { ...base, result: "pending" } }),
    );
    expect(metrics.some((m) => m.name === "MessageSendFailed")).toBe(false);
    // Neither the recipients nor the codes are a dimension or a field.
    const written = JSON.stringify(captured.out.mock.calls);
    for (const secret of [values.email, values.phone, values.sub]) expect(written).not.toContain(secret);
    const sentCode = String(sns.commandCalls(PublishCommand)[0].args[0].input.Message).match(/\d{6}/)?.[0];
    expect(sentCode).toBeDefined();
    expect(written).not.toContain(sentCode);
  });

  it("when SNS refuses the code, the send counts as failed under the function alone too, and no registration counts", async () => {
    sns.on(PublishCommand).rejects(Object.assign(new Error("Rate exceeded"), { name: "ThrottlingException" }));
    const response = await invoke(
      "registration",
      await sampleEvent("events/registration/register-with-codes.json", contacts()),
    );
    expect(response.statusCode).toBe(502);
    const metrics = emitted(captured.out);
    expect(metrics).toContainEqual(
      expect.objectContaining({
        name: "MessageSendFailed",
        value: 1,
        dimensions: { ...base, channel: "sms", message: "confirmation-code" },
      }),
    );
    expect(metrics).toContainEqual(expect.objectContaining({ name: "MessageSendFailed", dimensions: base }));
    expect(metrics.some((m) => m.name === "Registration" || m.name === "MessageSent")).toBe(false);
  });

  it("when the contacts come confirmed, the account is created at once and counted created", async () => {
    const { sub, email } = contacts();
    const response = await invoke(
      "registration",
      await sampleEvent("events/registration/register-confirmed.json", { sub, email }),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(await services().accounts.get(sub)).toMatchObject({ sub });
    expect(emitted(captured.out)).toContainEqual(
      expect.objectContaining({ name: "Registration", value: 1, dimensions: { ...base, result: "created" } }),
    );
  });

  it("when the preRegistration hook refuses, the registration counts as refused", async () => {
    useScriptedHooks({ preRegistration: 500 });
    scriptHook("preRegistration", () => ({ action: "deny", message: "Not from this domain" }));
    const response = await invoke(
      "registration",
      await sampleEvent("events/registration/register-confirmed.json", contacts()),
    );
    expect(response.statusCode).toBe(403);
    expect(emitted(captured.out)).toContainEqual(
      expect.objectContaining({ name: "Registration", value: 1, dimensions: { ...base, result: "refused" } }),
    );
  });

  it("when a hook times out, it counts a hook failure by hook and why, under the function alone too", async () => {
    useScriptedHooks({ preSignIn: 50 });
    scriptHook("preSignIn", () => sleep(500).then(() => ({ action: "allow" })));
    const { response } = await passwordSignIn(PASSWORD);
    expect(response.statusCode).toBe(503);
    const metrics = emitted(captured.out);
    const token = { service: "svc-identity", function: "token" };
    expect(metrics).toContainEqual(
      expect.objectContaining({
        name: "HookFailed",
        value: 1,
        dimensions: { ...token, hook: "preSignIn", why: "timeout" },
      }),
    );
    expect(metrics).toContainEqual(expect.objectContaining({ name: "HookFailed", value: 1, dimensions: token }));
    expect(metrics).toContainEqual(
      expect.objectContaining({ name: "SignIn", dimensions: { ...token, method: "password", result: "hook_failed" } }),
    );
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
