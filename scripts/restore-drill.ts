import { execFile } from "node:child_process";
import { pbkdf2Sync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DeleteTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import bcrypt from "bcryptjs";
import { argon2id } from "hash-wasm";
import { config, setEnvDefaults } from "../lib/config";
import { LOCAL_TOOL_ENV } from "../lib/config/environment";
import { accountTransfer } from "../lib/container";
import { ensureBootstrapClient } from "../lib/local/bootstrap";
import { prepareEvent } from "../lib/local/events";
import { loadFunction } from "../lib/local/functions";
import { lambdaContext } from "../lib/local/gateway";
import { attachLocalStorage, prepareTable } from "../lib/local/stack";

/**
 * The restore drill of docs/operations.md, on the local stack and a table of its own (the
 * stack's own data is not touched): seed accounts (our scrypt, bcrypt, argon2id, PBKDF2),
 * export them with `svc-admin users export`, delete the table, create it again, import the
 * export with `svc-admin users import`, and sign every account in through the real token
 * endpoint with its password. Prints each check; exits 1 if one fails.
 *
 *   npm run restore-drill [-- --users 20] [--keep]
 */

const { values } = parseArgs({ options: { users: { type: "string" }, keep: { type: "boolean" } } });
const USERS = Number(values.users ?? "20");
if (!Number.isInteger(USERS) || USERS < 1 || USERS > 1000) throw new Error("--users must be 1 to 1000");

// Every step, this process and the CLI's children, uses the drill's table and keys.
const drillEnv = {
  TABLE_NAME: `svc-restore-drill-${Date.now()}`,
  SVC_DATA_KEY: randomBytes(32).toString("base64"),
  SVC_BOOTSTRAP_CLIENT_ID: "restore-drill",
  SVC_BOOTSTRAP_CLIENT_SECRET: randomBytes(32).toString("base64url"),
};
Object.assign(process.env, drillEnv);
setEnvDefaults(LOCAL_TOOL_ENV);

const dir = mkdtempSync(join(tmpdir(), "restore-drill-"));
let failures = 0;
const check = (ok: boolean, what: string) => {
  if (!ok) failures += 1;
  process.stdout.write(`${ok ? "ok  " : "FAIL"} ${what}\n`);
};

function svcAdmin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) =>
    execFile(
      process.execPath,
      ["bin/svc-admin.mjs", ...args],
      { env: { ...process.env, DYNAMODB_PORT: String(config().dynamodbPort) }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

interface Seeded {
  sub: string;
  password: string;
  kind: string;
}

async function seedFile(): Promise<Seeded[]> {
  const seeded: Seeded[] = [];
  const lines: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const sub = `drill-${i}`;
    const password = randomBytes(12).toString("base64url");
    const kind = ["scrypt", "bcrypt", "argon2id", "pbkdf2-sha256"][i % 4];
    const secret =
      kind === "scrypt"
        ? { password }
        : kind === "bcrypt"
          ? { password_hash: bcrypt.hashSync(password, 8) }
          : kind === "argon2id"
            ? {
                password_hash: await argon2id({
                  password,
                  salt: randomBytes(16),
                  parallelism: 1,
                  iterations: 3,
                  memorySize: 65536,
                  hashLength: 32,
                  outputType: "encoded",
                }),
              }
            : {
                password_hash: `pbkdf2_sha256$600000$drillsalt${i}$${pbkdf2Sync(password, `drillsalt${i}`, 600000, 32, "sha256").toString("base64")}`,
              };
    lines.push(
      JSON.stringify({
        sub,
        given_name: `Drill ${i}`,
        email: { value: `${sub}@example.com`, verified: true },
        ...secret,
      }),
    );
    seeded.push({ sub, password, kind });
  }
  writeFileSync(join(dir, "seed.jsonl"), `${lines.join("\n")}\n`);
  return seeded;
}

async function passwordGrant(username: string, password: string): Promise<number> {
  const raw = JSON.parse(readFileSync("events/token/password-grant.json", "utf8")) as APIGatewayProxyEventV2;
  const basic = Buffer.from(`${drillEnv.SVC_BOOTSTRAP_CLIENT_ID}:${drillEnv.SVC_BOOTSTRAP_CLIENT_SECRET}`).toString(
    "base64",
  );
  const event = await prepareEvent(raw, { clientBasic: basic, username: "x", password: "x" });
  event.body = new URLSearchParams({ grant_type: "password", username, password, scope: "svc_api_user" }).toString();
  const handler = await loadFunction("token");
  const answer = (await handler(event, lambdaContext("token", event.requestContext.requestId))) as {
    statusCode: number;
  };
  return answer.statusCode;
}

async function dropTable(): Promise<void> {
  const admin = new DynamoDBClient({
    endpoint: config().dynamodbEndpoint,
    region: config().region,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  try {
    await admin.send(new DeleteTableCommand({ TableName: config().tableName }));
  } finally {
    admin.destroy();
  }
}

const storage = await attachLocalStorage();
try {
  process.stdout.write(
    `restore drill on table ${config().tableName} (DynamoDB Local, port ${config().dynamodbPort})\n`,
  );
  await ensureBootstrapClient();
  const seeded = await seedFile();
  const seededRun = await svcAdmin("users", "import", join(dir, "seed.jsonl"));
  check(
    seededRun.code === 0,
    `seeded ${USERS} accounts (scrypt, bcrypt, argon2id, PBKDF2): ${seededRun.stdout.trim()}`,
  );

  const exported = await svcAdmin("users", "export", "--out", join(dir, "export.jsonl"), "--with-factors");
  const exportedLines = readFileSync(join(dir, "export.jsonl"), "utf8").split("\n").filter(Boolean).length;
  check(exported.code === 0 && exportedLines === USERS, `exported ${exportedLines} accounts`);

  await dropTable();
  // A new empty table, its signing key and client, as a fresh deploy has them.
  await prepareTable(config().dynamodbEndpoint as string);
  await ensureBootstrapClient();
  check((await passwordGrant(seeded[0].sub, seeded[0].password)) !== 200, "after the wipe, sign-in is refused");

  const imported = await svcAdmin("users", "import", join(dir, "export.jsonl"));
  check(imported.code === 0, `imported the export: ${imported.stdout.trim()}`);
  const again = await svcAdmin("users", "import", join(dir, "export.jsonl"));
  check(
    again.stdout.includes(`imported 0, unchanged ${USERS}, failed 0`),
    `a rerun changes nothing: ${again.stdout.trim()}`,
  );

  for (const user of seeded) {
    const status = await passwordGrant(user.sub, user.password);
    const algorithm = (await accountTransfer().read(user.sub, false))?.credential?.hash.alg;
    check(
      status === 200 && algorithm === "scrypt",
      `${user.sub} (${user.kind}) signs in with its password; stored hash now ${algorithm}`,
    );
  }
  check((await passwordGrant(seeded[0].sub, "not the password")) === 400, "a wrong password is refused");
} finally {
  if (!values.keep) {
    await dropTable().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  } else process.stdout.write(`kept: table ${config().tableName}, files in ${dir}\n`);
  await storage.release();
}
process.stdout.write(failures === 0 ? "restore drill passed\n" : `restore drill FAILED: ${failures} checks\n`);
process.exit(failures === 0 ? 0 : 1);
