import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../../../lib/local/dynamodb-local";
import { startProcess, stopStartedProcesses } from "../../support/processes";
import { basicAuthorization } from "../../support/requests";

/** `npm start` as a user runs it: a real process, real ports, real signals. */

const repo = resolve(".");
const startScript = join(repo, "lib/local/start.ts");

afterEach(stopStartedProcesses);

function javaOnPort(port: number): boolean {
  try {
    return execFileSync("pgrep", ["-f", `DynamoDBLocal.jar.*-port ${port}`], { encoding: "utf8" }).trim() !== "";
  } catch {
    return false;
  }
}

/** The command of the `start` script, run in `cwd` (npm itself when `viaNpm`). */
async function start(cwd: string, env: Record<string, string>, viaNpm = false) {
  const [port, dynamodbPort] = [await freePort(), await freePort()];
  const [command, args] = viaNpm
    ? ["npm", ["start", "--silent"]]
    : [
        process.execPath,
        [
          "--import",
          pathToFileURL(join(repo, "node_modules/tsx/dist/loader.mjs")).href,
          "--import",
          pathToFileURL(join(repo, "scripts/loaders/text.mjs")).href,
          startScript,
        ],
      ];
  const child = startProcess(command, args, {
    cwd,
    env: {
      ...process.env,
      TABLE_NAME: "svc-identity",
      PORT: String(port),
      DYNAMODB_PORT: String(dynamodbPort),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c) => {
    output += c;
  });
  child.stderr?.on("data", (c) => {
    output += c;
  });
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
  const ready = await new Promise<boolean>((done) => {
    const timer = setInterval(() => {
      if (output.includes(`svc ready at http://127.0.0.1:${port}`)) {
        clearInterval(timer);
        done(true);
      }
      if (child.exitCode !== null) {
        clearInterval(timer);
        done(false);
      }
    }, 50);
  });
  return { child, port, dynamodbPort, ready, output: () => output, exited, base: `http://127.0.0.1:${port}` };
}

async function token(base: string, id: string, secret: string): Promise<Response> {
  return fetch(`${base}/svc/oauth/te`, {
    method: "POST",
    headers: {
      authorization: basicAuthorization(id, secret),
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials&scope=svc_api_sys_users",
  });
}

// A JVM on a busy two-core host can take a minute to answer (DYNAMODB_WAIT_SECONDS).
describe("npm start", { timeout: 180_000 }, () => {
  it("when started in memory with a bootstrap client, it serves, and SIGTERM leaves no java behind", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "svc-start-"));
    const stack = await start(cwd, {
      SVC_IN_MEMORY: "1",
      SVC_BOOTSTRAP_CLIENT_ID: "boot",
      SVC_BOOTSTRAP_CLIENT_SECRET: "boot-secret-that-is-long-enough-000000",
    });
    expect(stack.ready, stack.output()).toBe(true);
    expect(javaOnPort(stack.dynamodbPort)).toBe(true);
    expect(await (await fetch(`${stack.base}/svc/health`)).json()).toEqual({ status: "ok" });
    const issued = await token(stack.base, "boot", "boot-secret-that-is-long-enough-000000");
    expect(issued.status).toBe(200);
    // The hosted sample events' application is registered, so their authorization request gets the sign-in page.
    const sample = JSON.parse(readFileSync("events/hosted/authorize.json", "utf8")) as { rawQueryString: string };
    const page = await fetch(`${stack.base}/svc/oauth/authorize?${sample.rawQueryString}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('action="/svc/oauth/signin"');
    expect(stack.output()).not.toContain("boot-secret-that-is-long-enough");
    stack.child.kill("SIGTERM");
    expect(await stack.exited).toBe(0);
    expect(javaOnPort(stack.dynamodbPort)).toBe(false);
  });

  it("when an account registers, the account.created event lands in .local/events.jsonl and on the console", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "svc-start-"));
    const secret = "boot-secret-that-is-long-enough-000000";
    // Empty: the default, .local/events.jsonl under the working directory.
    const stack = await start(cwd, {
      SVC_IN_MEMORY: "1",
      SVC_BOOTSTRAP_CLIENT_ID: "boot",
      SVC_BOOTSTRAP_CLIENT_SECRET: secret,
      SVC_EVENTS_FILE: "",
    });
    expect(stack.ready, stack.output()).toBe(true);
    const issued = await fetch(`${stack.base}/svc/oauth/te`, {
      method: "POST",
      headers: {
        authorization: basicAuthorization("boot", secret),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials&scope=svc_api_sys_users_reg",
    });
    const { access_token } = (await issued.json()) as { access_token: string };
    const registered = await fetch(`${stack.base}/svc/reg/api/v3/users`, {
      method: "PUT",
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ user: { attrs: { sub: "eva", email: { value: "eva@example.com", verified: true } } } }),
    });
    expect(registered.status).toBe(200);
    const file = join(cwd, ".local/events.jsonl");
    const created = async () => {
      for (let i = 0; i < 100; i += 1) {
        const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
        const found = lines.map((line) => JSON.parse(line)).find((e) => e.type === "svc.identity.account.created");
        if (found) return found;
        await new Promise((done) => setTimeout(done, 100));
      }
      return undefined;
    };
    expect(await created()).toMatchObject({ specversion: "1.0", subject: "eva", source: `${stack.base}/svc` });
    // The console line is written after the file's: on a loaded machine it reaches this pipe a moment later.
    const echoed = "event svc.identity.account.created eva";
    for (let i = 0; i < 50 && !stack.output().includes(echoed); i += 1)
      await new Promise((done) => setTimeout(done, 100));
    expect(stack.output()).toContain(echoed);
    stack.child.kill("SIGTERM");
    expect(await stack.exited).toBe(0);
  });

  it("when started twice on the same folder, the second start keeps the data of the first", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "svc-start-"));
    // The issuer is in every token: a restart on another port would be another issuer.
    const issuer = { SVC_ISSUER: "http://127.0.0.1:3000/svc" };
    const first = await start(cwd, issuer);
    expect(first.ready, first.output()).toBe(true);
    const secret = /bootstrap client secret: (\S+)/.exec(first.output())?.[1] ?? "";
    const kids = (
      (await (await fetch(`${first.base}/svc/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
    ).keys
      .map((k) => k.kid)
      .sort();
    // One key per algorithm (ES256, RS256).
    expect(kids).toHaveLength(2);
    const issued = (await (await token(first.base, "svc-bootstrap", secret)).json()) as { access_token: string };
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(0);
    expect(javaOnPort(first.dynamodbPort)).toBe(false);

    const second = await start(cwd, issuer);
    expect(second.ready, second.output()).toBe(true);
    expect(second.output()).toContain("bootstrap client (saved)");
    expect(first.output()).toContain("registered for the sample events (events/): sample-web");
    expect(second.output()).not.toContain("registered for the sample events");
    const keys = (await (await fetch(`${second.base}/svc/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(keys.keys.map((k) => k.kid).sort()).toEqual(kids);
    // A token of the first run is still valid: the key and table survived.
    const read = await fetch(`${second.base}/svc/api/v3/users/nobody`, {
      headers: { authorization: `Bearer ${issued.access_token}` },
    });
    expect(read.status).toBe(404);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("when npm itself gets SIGTERM, the service and DynamoDB Local stop with it", async () => {
    const stack = await start(repo, { SVC_IN_MEMORY: "1" }, true);
    expect(stack.ready, stack.output()).toBe(true);
    stack.child.kill("SIGTERM");
    await stack.exited;
    await new Promise((r) => setTimeout(r, 1500));
    expect(javaOnPort(stack.dynamodbPort)).toBe(false);
    expect(
      await fetch(`${stack.base}/svc/health`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
  });

  it("when the parent dies without passing on a signal, the service notices and stops DynamoDB Local", async () => {
    const stack = await start(repo, { SVC_IN_MEMORY: "1" }, true);
    expect(stack.ready, stack.output()).toBe(true);
    stack.child.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 3000));
    expect(javaOnPort(stack.dynamodbPort)).toBe(false);
  });

  it("when Java is not on PATH, it stops at once with one line saying how to install it", async () => {
    const bin = mkdtempSync(join(tmpdir(), "svc-nojava-"));
    mkdirSync(join(bin, "bin"));
    symlinkSync(process.execPath, join(bin, "bin", "node"));
    const stack = await start(bin, { PATH: join(bin, "bin"), SVC_IN_MEMORY: "1" });
    expect(stack.ready).toBe(false);
    expect(await stack.exited).toBe(1);
    const lines = stack.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Java 17\+ is required.*apt-get install -y openjdk-17-jre-headless/);
  });
});

/** A `java` on PATH that waits `seconds` before it runs the real one, as a JVM on a busy host does. */
function slowJava(seconds: number): string {
  const real = execFileSync("sh", ["-c", "command -v java"], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "svc-slowjava-"));
  const script = join(dir, "java");
  writeFileSync(
    script,
    `#!/bin/sh\ncase "$*" in *-version*) exec "${real}" "$@";; esac\nsleep ${seconds}\nexec "${real}" "$@"\n`,
  );
  chmodSync(script, 0o755);
  return `${dir}:${process.env.PATH}`;
}

describe("npm start on a slow host", { timeout: 180_000 }, () => {
  it("when DynamoDB Local takes a while to answer, it prints its progress and starts", async () => {
    const stack = await start(repo, { SVC_IN_MEMORY: "1", PATH: slowJava(7), DYNAMODB_WAIT_SECONDS: "90" });
    expect(stack.ready, stack.output()).toBe(true);
    expect(stack.output()).toContain("waiting for DynamoDB Local: 5 s of 90 (DYNAMODB_WAIT_SECONDS)");
    stack.child.kill("SIGTERM");
    expect(await stack.exited).toBe(0);
    expect(javaOnPort(stack.dynamodbPort)).toBe(false);
  });

  it("when DynamoDB Local does not answer within DYNAMODB_WAIT_SECONDS, it says so and leaves nothing behind", async () => {
    const stack = await start(repo, { SVC_IN_MEMORY: "1", PATH: slowJava(8), DYNAMODB_WAIT_SECONDS: "2" });
    expect(stack.ready).toBe(false);
    expect(await stack.exited).toBe(1);
    expect(stack.output()).toMatch(
      /DynamoDB Local did not answer within 2 s \(set DYNAMODB_WAIT_SECONDS to wait longer\)/,
    );
    // Past the point where the waiting wrapper would have started the JVM.
    await new Promise((r) => setTimeout(r, 8000));
    expect(javaOnPort(stack.dynamodbPort)).toBe(false);
  });

  it("when a test process is killed outright, the DynamoDB Local and the npm start it ran die with it", async () => {
    const [dynamodbPort, startDynamodbPort, port] = [await freePort(), await freePort(), await freePort()];
    // Started like a vitest worker (no group of its own), killed as a timeout or OOM kills one.
    const { spawn } = await import("node:child_process");
    const worker = spawn(
      process.execPath,
      ["--import", "tsx", "test/support/killed-test.ts", String(dynamodbPort), String(startDynamodbPort), String(port)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const startPid = await new Promise<number>((done, fail) => {
      let out = "";
      worker.stdout?.on("data", (chunk) => {
        out += chunk;
        const ready = /ready (\d+)/.exec(out);
        if (ready) done(Number(ready[1]));
      });
      worker.once("exit", (code) => fail(new Error(`killed-test exited ${code}: ${out}`)));
    });
    expect(javaOnPort(dynamodbPort) && javaOnPort(startDynamodbPort)).toBe(true);
    worker.kill("SIGKILL");
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    let left = true;
    for (let i = 0; i < 100 && left; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      left = javaOnPort(dynamodbPort) || javaOnPort(startDynamodbPort) || alive(startPid);
    }
    expect({
      suiteJava: javaOnPort(dynamodbPort),
      startJava: javaOnPort(startDynamodbPort),
      start: alive(startPid),
    }).toEqual({ suiteJava: false, startJava: false, start: false });
  });
});
