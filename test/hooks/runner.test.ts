import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { ServiceSettings } from "../../lib/config/settings";
import { ConfigError, parseSettings } from "../../lib/config/validation";
import { HookFailedError } from "../../lib/domain/hooks/ports";
import type { MetricsPort } from "../../lib/domain/metrics";
import { createHookRunner } from "../../lib/hooks/runner";
import { transportsFor } from "../../lib/hooks/transports";
import {
  eventually,
  forgetHookCalls,
  hookCalls,
  SCRIPTED_HOOK,
  scriptHook,
  sleep,
  startHookServer,
} from "../support/hooks";

/**
 * The hook runner against real targets: the scripted module file and a loopback HTTP server;
 * the Lambda adapter against the SDK's boundary (aws-sdk-client-mock).
 */

const logged: Array<{ message: string; fields: Record<string, unknown> }> = [];
const log = (message: string, fields: Record<string, unknown>) => logged.push({ message, fields });

const counted: Array<[string, Record<string, string> | undefined]> = [];
const metrics: MetricsPort = { count: (name, dims) => counted.push([name, dims]) };

function runnerFor(hooks: Record<string, unknown>, retry = { attempts: 3, firstDelayMs: 10 }) {
  const settings = parseSettings({ hooks }) as ServiceSettings;
  return createHookRunner(settings.hooks, transportsFor("eu-west-1"), log, retry, metrics);
}

const signIn = { clientId: "app", sub: "alice", method: "password", ip: "127.0.0.1", userAgent: "test" };

beforeEach(() => {
  forgetHookCalls();
  logged.length = 0;
  counted.length = 0;
});

describe("hook runner, module target", () => {
  const runner = runnerFor({
    preSignIn: { target: SCRIPTED_HOOK, timeoutMs: 200 },
    postSignIn: { target: SCRIPTED_HOOK, timeoutMs: 200 },
    userMigration: { target: SCRIPTED_HOOK, timeoutMs: 200 },
  });

  it("when the hook answers within its contract, the answer comes back and the input carries version and hook", async () => {
    scriptHook("preSignIn", () => ({ action: "allow" }));
    expect(await runner.call("preSignIn", signIn)).toEqual({ action: "allow" });
    expect(hookCalls("preSignIn")).toEqual([{ version: "1", hook: "preSignIn", ...signIn }]);
  });

  it("when the hook refuses, the refusal and its message come back to the flow", async () => {
    scriptHook("preSignIn", () => ({ action: "deny", message: "Sign-in is closed tonight" }));
    expect(await runner.call("preSignIn", signIn)).toEqual({ action: "deny", message: "Sign-in is closed tonight" });
  });

  it("when the hook is slower than its timeoutMs, it fails as a timeout", async () => {
    scriptHook("preSignIn", async () => {
      await sleep(1000);
      return { action: "allow" };
    });
    const started = Date.now();
    const error = await runner.call("preSignIn", signIn).catch((e) => e);
    expect(error).toBeInstanceOf(HookFailedError);
    expect(error).toMatchObject({ hook: "preSignIn", why: "timeout" });
    expect(Date.now() - started).toBeLessThan(800);
  });

  it.each([
    ["an unknown action", { action: "maybe" }],
    ["an extra field", { action: "allow", extra: 1 }],
    ["no answer", undefined],
    ["a multi-line message", { action: "deny", message: "a\nb" }],
  ])("when the hook answers %s, it fails as malformed and logs where, not what", async (_what, answer) => {
    scriptHook("preSignIn", () => answer);
    await expect(runner.call("preSignIn", signIn)).rejects.toMatchObject({ why: "malformed" });
    expect(logged).toHaveLength(1);
    expect(logged[0].fields).toMatchObject({ hook: "preSignIn", why: "malformed" });
  });

  it("when the hook throws, it fails, and a userMigration error's message (it may echo the password) is not logged", async () => {
    scriptHook("userMigration", (input) => {
      throw new Error(`bad password ${input.password}`);
    });
    const error = await runner
      .call("userMigration", { trigger: "signIn", username: "bob", password: "hunter2-secret" })
      .catch((e) => e);
    expect(error).toMatchObject({ hook: "userMigration", why: "failed" });
    expect(JSON.stringify(logged)).not.toContain("hunter2-secret");
    expect(String(error.message)).not.toContain("hunter2-secret");
  });

  it("when a hook is not configured, call answers undefined and asks nobody", async () => {
    expect(runner.configured("preRegistration")).toBe(false);
    expect(await runner.call("preRegistration", { clientId: "a", language: "en", user: { sub: "x" } })).toBeUndefined();
  });

  it("when an asynchronous hook fails, notify resolves at once and it is retried with backoff", async () => {
    let tries = 0;
    scriptHook("postSignIn", () => {
      tries += 1;
      if (tries < 3) throw new Error("not yet");
      return {};
    });
    const started = Date.now();
    await runner.notify("postSignIn", signIn);
    expect(Date.now() - started).toBeLessThan(50);
    await eventually(() => hookCalls("postSignIn").length === 3);
    expect(logged).toEqual([]);
  });

  it("when an asynchronous hook keeps failing, it gives up after the last try and logs it", async () => {
    scriptHook("postSignIn", () => {
      throw new Error("down");
    });
    await runner.notify("postSignIn", signIn);
    await eventually(() => logged.length === 1);
    expect(hookCalls("postSignIn")).toHaveLength(3);
    expect(logged[0].fields).toMatchObject({ hook: "postSignIn", tries: 3 });
    expect(counted).toEqual([["HookFailed", { hook: "postSignIn", why: "failed" }]]);
  });

  it("when an asynchronous hook keeps running out of time, its one failure counts as a timeout", async () => {
    scriptHook("postSignIn", () => sleep(1000).then(() => ({})));
    await runner.notify("postSignIn", signIn);
    await eventually(() => logged.length === 1);
    expect(counted).toEqual([["HookFailed", { hook: "postSignIn", why: "timeout" }]]);
  });
});

let reply: { status: number; body: unknown; delay?: number } = { status: 200, body: { action: "allow" } };
const server = await startHookServer(async () => {
  if (reply.delay) await sleep(reply.delay);
  return reply;
});
afterAll(() => server.stop());

describe("hook runner, loopback HTTP target", () => {
  const runner = runnerFor({ preSignIn: { target: server.url, timeoutMs: 200 } });

  it("when the server answers within its contract, the answer comes back", async () => {
    reply = { status: 200, body: { action: "deny", message: "no" } };
    expect(await runner.call("preSignIn", signIn)).toEqual({ action: "deny", message: "no" });
    expect(server.received.at(-1)).toMatchObject({ version: "1", hook: "preSignIn", sub: "alice" });
  });

  it.each([
    ["an HTTP error", { status: 500, body: { action: "allow" } }, "failed"],
    ["a body outside the contract", { status: 200, body: { allow: true } }, "malformed"],
    ["too late", { status: 200, body: { action: "allow" }, delay: 600 }, "timeout"],
  ])("when the server answers %s, it fails closed", async (_what, answer, why) => {
    reply = answer;
    await expect(runner.call("preSignIn", signIn)).rejects.toMatchObject({ hook: "preSignIn", why });
  });
});

describe("hook runner, Lambda target", () => {
  const lambda = mockClient(LambdaClient);
  afterAll(() => lambda.restore());
  beforeEach(() => lambda.reset());
  const arn = "arn:aws:lambda:eu-west-1:123456789012:function:hooks";
  const runner = runnerFor({ preSignIn: { target: arn, timeoutMs: 200 }, postSignIn: { target: arn } });
  const payload = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) as never;

  it("when the function answers, it was invoked RequestResponse with the input as payload", async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload({ action: "allow" }) });
    expect(await runner.call("preSignIn", signIn)).toEqual({ action: "allow" });
    const sent = lambda.commandCalls(InvokeCommand)[0].args[0].input;
    expect(sent).toMatchObject({ FunctionName: arn, InvocationType: "RequestResponse" });
    expect(JSON.parse(Buffer.from(sent.Payload as Uint8Array).toString())).toMatchObject({ hook: "preSignIn" });
  });

  it("when the function throws (FunctionError), it fails closed", async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: "Unhandled", Payload: payload({}) });
    await expect(runner.call("preSignIn", signIn)).rejects.toMatchObject({ why: "failed" });
  });

  it("when the function answers outside the contract, it fails closed", async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, Payload: payload({ action: 1 }) });
    await expect(runner.call("preSignIn", signIn)).rejects.toMatchObject({ why: "malformed" });
  });

  it("when the invoke outlasts timeoutMs, it fails as a timeout", async () => {
    lambda.on(InvokeCommand).callsFake(() => sleep(1000).then(() => ({ StatusCode: 200, Payload: payload({}) })));
    await expect(runner.call("preSignIn", signIn)).rejects.toMatchObject({ why: "timeout" });
  });

  it("when an asynchronous hook is notified, it is one Event invoke that Lambda retries itself", async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
    await runner.notify("postSignIn", signIn);
    const calls = lambda.commandCalls(InvokeCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0].args[0].input).toMatchObject({ FunctionName: arn, InvocationType: "Event" });
  });

  it("when the Event invoke is refused, notify still resolves and the failure is logged", async () => {
    lambda.on(InvokeCommand).rejects(new Error("throttled"));
    await runner.notify("postSignIn", signIn);
    expect(logged[0].fields).toMatchObject({ hook: "postSignIn", tries: 1 });
  });
});

describe("hook settings", () => {
  it.each([
    ["http://10.0.0.5/hook", /must be a loopback URL/],
    ["https://hooks.example.com/pre", /must be a loopback URL/],
    ["./no/such/module.mjs", /no module at/],
    ["ftp://127.0.0.1/x", /must be a Lambda ARN/],
    ["lambda:", /names no function/],
  ])("when a target is %s, configuration stops with a clear message", (target, message) => {
    expect(() => parseSettings({ hooks: { preSignIn: { target } } })).toThrow(ConfigError);
    expect(() => parseSettings({ hooks: { preSignIn: { target } } })).toThrow(message);
  });

  it("when a hook is unknown or its timeout out of range, the schema refuses it", () => {
    expect(() => parseSettings({ hooks: { preSignUp: { target: SCRIPTED_HOOK } } })).toThrow(/additional properties/);
    expect(() => parseSettings({ hooks: { preSignIn: { target: SCRIPTED_HOOK, timeoutMs: 60000 } } })).toThrow(
      /timeoutMs/,
    );
  });

  it("when targets are valid, each kind is recognised and timeoutMs defaults to 3000", () => {
    const { hooks } = parseSettings({
      hooks: {
        preSignIn: { target: "http://127.0.0.1:9/hook", timeoutMs: 500 },
        postSignIn: { target: "lambda:post-sign-in" },
        preRegistration: { target: SCRIPTED_HOOK },
      },
    });
    expect(hooks).toEqual({
      preSignIn: { target: { kind: "http", url: "http://127.0.0.1:9/hook" }, timeoutMs: 500 },
      postSignIn: { target: { kind: "lambda", functionName: "post-sign-in" }, timeoutMs: 3000 },
      preRegistration: { target: { kind: "module", path: SCRIPTED_HOOK }, timeoutMs: 3000 },
    });
  });
});
