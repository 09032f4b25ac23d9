import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type RunningDynamo, startDynamoLocal } from "../../lib/local/dynamodb-local";
import { keys } from "../../lib/store/keys";
import { claimProblems, rightsProblems } from "../support/invariants";
import { startProcess, stopStartedProcesses } from "../support/processes";
import { basicAuthorization } from "../support/requests";
import { startTally } from "../support/tally";

/**
 * DynamoDB stops under a running gateway (its own DynamoDB Local on a free port, not the
 * suite's, and a gateway in a child process) while registrations and rights changes are
 * in flight: calls answer 503 with a clear body within the client timeout, never 500,
 * and after a restart on the same data no half-written account, no orphaned uniqueness
 * claim and no right written in one direction only exists.
 */

const tally = startTally(import.meta.filename);

const CLIENT = { id: "outage-app", secret: "outage-app-secret-0123456789abcdef0123456789" };
const TABLE = "svc-identity-outage";
const BASIC = basicAuthorization(CLIENT.id, CLIENT.secret);

let dynamo: RunningDynamo;
let gateway: ChildProcess;
let base = "";
let dynamoPort = 0;
const dataDir = mkdtempSync(join(tmpdir(), "svc-outage-"));

beforeAll(async () => {
  dynamoPort = await freePort();
  dynamo = await startDynamoLocal({ port: dynamoPort, dataDir });
  gateway = startProcess(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/loaders/text.mjs", "test/support/gateway-process.ts"],
    {
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
    },
  );
  base = await new Promise<string>((done, fail) => {
    let out = "";
    gateway.stdout?.on("data", (chunk) => {
      out += chunk;
      const ready = /ready (\d+)/.exec(out);
      if (ready) done(`http://127.0.0.1:${ready[1]}`);
    });
    gateway.once("exit", (code) => fail(new Error(`gateway exited ${code}`)));
  });
}, 180_000);

afterAll(async () => {
  stopStartedProcesses();
  await dynamo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, token: string, body: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  tally.answered(response.status);
  await response.arrayBuffer();
  return response.status;
}

function register(token: string, sub: string) {
  return call("PUT", "/svc/reg/api/v3/users", token, {
    user: {
      attrs: {
        sub,
        family_name: "Burst",
        given_name: "Boris",
        email: { value: `${sub}@example.com`, verified: true },
        phone_number: { value: `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`, verified: true },
      },
    },
  });
}

/** Registrations and rights changes, a few at a time, until `until` says stop. */
async function burst(registrar: string, rights: string, lead: string, member: string, until: () => boolean) {
  const statuses: number[] = [];
  let round = 0;
  while (!until()) {
    round += 1;
    const tag = `t${round % 4}`;
    const pair = { subject: lead, object: member, rights: ["SYS_MON"], tags: [tag] };
    statuses.push(
      ...(await Promise.all([
        register(registrar, `burst-${round}-${randomBytes(3).toString("hex")}`),
        call("PUT", "/svc/api/v3/rights", rights, pair),
        call("DELETE", "/svc/api/v3/rights", rights, { ...pair, tags: [`t${(round + 1) % 4}`] }),
      ])),
    );
  }
  return statuses;
}

async function scanAll(client: DynamoDBDocumentClient): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: TABLE, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

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
  it("when DynamoDB stops under a running gateway mid-run, it answers 503 with a clear body in time, and after a restart nothing is half-written", async () => {
    const registrar = await systemToken("svc_api_sys_users_reg");
    const reader = await systemToken("svc_api_sys_users");
    const rights = await systemToken("svc_rights_full_access");
    const lead = `lead-${randomBytes(3).toString("hex")}`;
    const member = `member-${randomBytes(3).toString("hex")}`;
    expect(await register(registrar, lead)).toBe(200);
    expect(await register(registrar, member)).toBe(200);

    // Stopped while writes are in flight: some land, some are cut off mid-request.
    let stopped = false;
    const running = burst(registrar, rights, lead, member, () => stopped);
    await new Promise((r) => setTimeout(r, 1500));
    await dynamo.stop();
    tally.fault();
    stopped = true;
    const burstStatuses = await running;
    await tally.invariant(() => {
      expect(burstStatuses.filter((s) => ![200, 204, 409, 503].includes(s))).toEqual([]);
      expect(burstStatuses).toContain(503);
    });

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
    const items = await scanAll(client);
    await tally.invariant(() => {
      expect(items.filter((i) => String(i.PK).startsWith("USER#burst-")).length).toBeGreaterThan(0);
      expect(claimProblems(items)).toEqual([]);
      expect(rightsProblems(items)).toEqual([]);
    });
    client.destroy();
  }, 90_000);
});
