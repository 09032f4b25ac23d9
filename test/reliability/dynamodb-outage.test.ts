import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type RunningDynamo, startDynamoLocal } from "../../lib/local/dynamodb-local";
import { keys } from "../../lib/store/keys";

/**
 * DynamoDB stops under a running gateway (its own DynamoDB Local on a free port, not the
 * suite's, and a gateway in a child process): calls answer 503 with a clear body within
 * the client timeout, and after a restart on the same data no half-written account exists.
 */

const CLIENT = { id: "outage-app", secret: "outage-app-secret-0123456789abcdef0123456789" };
const TABLE = "svc-identity-outage";
const BASIC = `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString("base64")}`;

let dynamo: RunningDynamo;
let gateway: ChildProcess;
let base = "";
let dynamoPort = 0;
const dataDir = mkdtempSync(join(tmpdir(), "svc-outage-"));

beforeAll(async () => {
  dynamoPort = await freePort();
  dynamo = await startDynamoLocal({ port: dynamoPort, dataDir });
  gateway = spawn(process.execPath, ["--import", "tsx", "test/support/gateway-process.ts"], {
    env: {
      ...process.env,
      DYNAMODB_PORT: String(dynamoPort),
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`,
      TABLE_NAME: TABLE,
      SVC_BOOTSTRAP_CLIENT_ID: CLIENT.id,
      SVC_BOOTSTRAP_CLIENT_SECRET: CLIENT.secret,
      SVC_DATA_KEY: randomBytes(32).toString("base64"),
      SVC_MESSAGES: "outbox",
      SVC_OUTBOX_FILE: join(dataDir, "outbox.jsonl"),
      LOG_LEVEL: "silent",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  base = await new Promise<string>((done, fail) => {
    let out = "";
    gateway.stdout?.on("data", (chunk) => {
      out += chunk;
      const ready = /ready (\d+)/.exec(out);
      if (ready) done(`http://127.0.0.1:${ready[1]}`);
    });
    gateway.once("exit", (code) => fail(new Error(`gateway exited ${code}`)));
  });
}, 60_000);

afterAll(async () => {
  gateway?.kill("SIGTERM");
  await dynamo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function systemToken(scope: string): Promise<string> {
  const response = await fetch(`${base}/svc/oauth/te`, {
    method: "POST",
    headers: { authorization: BASIC, "content-type": "application/x-www-form-urlencoded" },
    body: `grant_type=client_credentials&scope=${scope}`,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

describe("DynamoDB outage", () => {
  it("when DynamoDB stops under a running gateway, it answers 503 with a clear body in time, and after a restart no partial registration exists", async () => {
    const registrar = await systemToken("svc_api_sys_users_reg");
    const reader = await systemToken("svc_api_sys_users");
    await dynamo.stop();

    const email = `outage-${randomBytes(4).toString("hex")}@example.com`;
    const started = Date.now();
    const registration = await fetch(`${base}/svc/reg/api/v3/users`, {
      method: "PUT",
      headers: { authorization: `Bearer ${registrar}`, "content-type": "application/json" },
      body: JSON.stringify({
        user: { attrs: { family_name: "Orlov", given_name: "Oleg", email: { value: email, verified: true } } },
      }),
    });
    const read = await fetch(`${base}/svc/api/v3/users/someone`, { headers: { authorization: `Bearer ${reader}` } });
    const elapsed = Date.now() - started;

    expect(registration.status).toBe(503);
    const registrationBody = await registration.text();
    expect(read.status).toBe(503);
    const readBody = await read.text();
    for (const body of [registrationBody, readBody]) {
      expect(body).not.toMatch(/ECONNREFUSED|\n\s+at |stack|127\.0\.0\.1/);
    }
    expect(JSON.parse(readBody)).toMatchObject({ error: expect.any(String), desc: expect.any(String) });
    expect(JSON.parse(registrationBody)).toMatchObject({ errors: expect.any(Array) });
    // Two calls, each bounded by the client's timeouts and retries (lib/store/client.ts).
    expect(elapsed).toBeLessThan(25_000);

    dynamo = await startDynamoLocal({ port: dynamoPort, dataDir });
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: dynamo.endpoint,
        region: "eu-west-1",
        credentials: { accessKeyId: "local", secretAccessKey: "local" },
      }),
    );
    const claim = await client.send(
      new GetCommand({ TableName: TABLE, Key: keys.uniqueEmail(email), ConsistentRead: true }),
    );
    expect(claim.Item).toBeUndefined();
    client.destroy();
  }, 90_000);
});
