import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inSubsegment, traced } from "../../lib/tracing";
import { SCRIPTED_HOOK } from "../support/hooks";
import { startProcess, stopStartedProcesses } from "../support/processes";

/**
 * Tracing as on Lambda: test/support/traced-calls.ts runs in a process with Lambda's
 * tracing environment, its X-Ray daemon a UDP socket of this test, its DynamoDB the suite's
 * DynamoDB Local and its Lambda API a loopback stand-in. What the datagrams carry is checked.
 */

interface Subsegment {
  id: string;
  name: string;
  trace_id: string;
  parent_id: string;
  namespace?: string;
  error?: boolean;
  cause?: unknown;
  aws?: { operation?: string; table_name?: string; function_name?: string };
}

const PASSWORD = `Pw-${randomBytes(9).toString("base64url")}`;
const TOKEN = `tok-${randomBytes(12).toString("base64url")}`;
const TRACE_ROOT = `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString("hex")}`;

const datagrams: string[] = [];
const lambdaBodies: string[] = [];
let output = "";
let exitCode: number | null = null;

function subsegments(): Subsegment[] {
  // Each datagram is a header line, then one (sub)segment document.
  return datagrams.map((text) => JSON.parse(text.split("\n")[1]) as Subsegment);
}

beforeAll(async () => {
  const daemon = createSocket("udp4");
  daemon.on("message", (message) => datagrams.push(message.toString("utf8")));
  await new Promise<void>((done) => daemon.bind(0, "127.0.0.1", done));
  // The Lambda API's Invoke: the userMigration hook answers that it does not know the user.
  const lambda = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      lambdaBodies.push(body);
      res.writeHead(200, { "content-type": "application/json", "x-amz-executed-version": "$LATEST" });
      res.end(JSON.stringify({ action: "unknown" }));
    });
  });
  await new Promise<void>((done) => lambda.listen(0, "127.0.0.1", done));
  const child = startProcess(
    process.execPath,
    ["--import", "tsx", "test/support/traced-calls.ts", PASSWORD, TOKEN, SCRIPTED_HOOK],
    {
      env: {
        ...process.env,
        AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
        LAMBDA_TASK_ROOT: process.cwd(),
        _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=0123456789abcdef;Sampled=1`,
        AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(daemon.address() as AddressInfo).port}`,
        AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`,
        AWS_ACCESS_KEY_ID: "test",
        AWS_SECRET_ACCESS_KEY: "test",
      },
    },
  );
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  exitCode = await new Promise((done) => child.on("exit", done));
  // The last datagrams may still be on their way through the loopback.
  await new Promise((done) => setTimeout(done, 200));
  daemon.close();
  lambda.close();
}, 60_000);

afterAll(stopStartedProcesses);

describe("tracing on Lambda", () => {
  it("when the traced process runs, it succeeds and prints nothing", () => {
    expect(output).toBe("");
    expect(exitCode).toBe(0);
    // The hook was given the password: its absence from the trace below means something.
    expect(lambdaBodies.join()).toContain(PASSWORD);
  });

  it("when DynamoDB is called, each call is a subsegment of the invocation's trace naming the service, operation and table", () => {
    const dynamo = subsegments().filter((s) => s.name === "DynamoDB");
    expect(dynamo.map((s) => s.aws?.operation).sort()).toEqual(["GetItem", "PutItem"]);
    for (const call of dynamo) {
      expect(call).toMatchObject({ namespace: "aws", trace_id: TRACE_ROOT, parent_id: "0123456789abcdef" });
      expect(call.aws?.table_name).toBe(process.env.TABLE_NAME);
    }
  });

  it("when a hook is called, it has its named subsegment, and its Lambda invoke is a subsegment of that", () => {
    const hook = subsegments().find((s) => s.name === "## hook userMigration");
    expect(hook).toMatchObject({ trace_id: TRACE_ROOT, parent_id: "0123456789abcdef" });
    const invoke = subsegments().find((s) => s.name === "Lambda");
    expect(invoke).toMatchObject({ namespace: "aws", parent_id: hook?.id, aws: { operation: "Invoke" } });
  });

  it("when a hook fails, its subsegment is flagged as an error without the error's text", () => {
    const hook = subsegments().find((s) => s.name === "## hook preSignIn");
    expect(hook).toMatchObject({ error: true });
    expect(hook?.cause).toBeUndefined();
  });

  it("when a call carries a password or a token, no datagram holds either", () => {
    expect(datagrams.length).toBeGreaterThanOrEqual(4);
    for (const text of datagrams) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(TOKEN);
    }
  });
});

describe("tracing off Lambda", () => {
  it("when not on Lambda, clients are left as they are and the X-Ray SDK is never loaded", async () => {
    const client = new DynamoDBClient({ region: "eu-west-1" });
    expect(traced(client).middlewareStack.identify().join()).not.toContain("XRay");
    expect(await inSubsegment("## hook preSignIn", async () => "answered")).toBe("answered");
    // The SDK's context store registers itself here as it loads, with its async hook.
    expect((process as { namespaces?: Record<string, unknown> }).namespaces?.AWSXRay).toBeUndefined();
  });
});
