import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { config, setEnvDefaults } from "../../lib/config";
import { LOCAL_TOOL_ENV } from "../../lib/config/environment";
import { type AssemblyStack, startAssemblyStack } from "../../lib/local/assembly/assembly-stack";
import { createGateway, type GatewayBackend } from "../../lib/local/gateway";

/**
 * `npx cdk synth` into a fresh folder, as an operator runs it before `cdk deploy`, with
 * `settings` as the operator's SVC_CONFIG file; returns the cloud assembly's folder.
 */
export function synthesize(settings: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "svc-cdk-out-"));
  const settingsFile = join(dir, "svc-config.json");
  writeFileSync(settingsFile, JSON.stringify(settings));
  const run = spawnSync("npx", ["cdk", "synth", "--quiet", "--no-notices", "-o", join(dir, "cdk.out")], {
    encoding: "utf8",
    env: {
      ...process.env,
      ...LOCAL_TOOL_ENV,
      SVC_CONFIG: settingsFile,
      SVC_ISSUER: "",
      CDK_DEFAULT_REGION: config().region,
    },
    timeout: 240_000,
  });
  if (run.status !== 0) throw new Error(`cdk synth failed: ${run.stderr.slice(-2000)}`);
  return join(dir, "cdk.out");
}

export interface ServedAssembly {
  base: string;
  /** The statuses each route key answered through this gateway. */
  answered: Map<string, number[]>;
  stack: AssemblyStack;
  stop(): Promise<void>;
}

/** A listening server that keeps its port until the gateway answers on it. */
export interface HeldPort {
  port: number;
  server: Server;
}

async function holdPort(port: number): Promise<HeldPort> {
  const server = createServer();
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => done());
  });
  return { port: (server.address() as AddressInfo).port, server };
}

/**
 * A port for the gateway, held from now on so no other listener takes it during the
 * synth, and this file's issuer set to it as the template's issuer will resolve (the
 * API's endpoint plus /svc), so tokens the tests make in process are the functions' own.
 * Before the file's first token. Passkey ceremonies in a browser need the host
 * `localhost`: browsers refuse an IP address as RP ID.
 */
export async function assemblyPort(host: "127.0.0.1" | "localhost" = "127.0.0.1"): Promise<HeldPort> {
  const held = await holdPort(0);
  process.env.SVC_ISSUER = `http://${host}:${held.port}/svc`;
  setEnvDefaults({});
  return held;
}

/**
 * The cloud assembly in `dir` behind the local gateway on the `held` port (or any free
 * one), on this file's table: every request runs the bundled function the template routes
 * it to, with its role enforced. `secretString` is the data key secret's value; the
 * functions' output goes to a file. The API's endpoint names `host`, as the file's issuer
 * does.
 */
export async function serveAssembly(
  dir: string,
  held: HeldPort | undefined,
  secretString: string,
  host: "127.0.0.1" | "localhost" = "127.0.0.1",
): Promise<ServedAssembly> {
  const { port, server } = held ?? (await holdPort(0));
  let gateway: Server | undefined;
  server.on("request", (req, res) => {
    if (gateway) gateway.emit("request", req, res);
    else res.writeHead(503).end();
  });
  const base = `http://${host}:${port}`;
  const stack = await startAssemblyStack({
    dir,
    apiEndpoint: base,
    tableName: config().tableName,
    region: config().region,
    dynamodbEndpoint: config().dynamodbEndpoint ?? "",
    secretString,
    outboxFile: config().outboxFile,
    eventsFile: config().events.file,
    logFile: join(tmpdir(), `${config().tableName}-functions.log`),
  });
  const answered = new Map<string, number[]>();
  const recording: GatewayBackend = {
    ...stack.backend,
    async invoke(fn, event) {
      const result = await stack.backend.invoke(fn, event);
      answered.set(event.routeKey, [...(answered.get(event.routeKey) ?? []), result.statusCode]);
      return result;
    },
  };
  gateway = createGateway({ backend: recording, cors: stack.cors });
  return {
    base,
    answered,
    stack,
    async stop() {
      server.closeAllConnections();
      server.close();
      await stack.stop();
    },
  };
}

interface MutableTemplate {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
}

/**
 * A copy of the cloud assembly in `dir` whose template `change` altered (a deliberate
 * break), sharing the original's bundles; every function's issuer pinned to `issuer`, as
 * a synth with SVC_ISSUER set would, so tokens of the original serve it.
 */
export function alteredAssembly(dir: string, issuer: string, change: (template: MutableTemplate) => void): string {
  const copy = mkdtempSync(join(tmpdir(), "svc-cdk-out-altered-"));
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  writeFileSync(join(copy, "manifest.json"), JSON.stringify(manifest));
  const stack = "SvcIdentity";
  const assets = JSON.parse(readFileSync(join(dir, `${stack}.assets.json`), "utf8")) as {
    files: Record<string, { source: { path: string } }>;
  };
  for (const file of Object.values(assets.files)) file.source.path = resolve(dir, file.source.path);
  writeFileSync(join(copy, `${stack}.assets.json`), JSON.stringify(assets));
  const templateFile = manifest.artifacts[stack].properties.templateFile as string;
  const template = JSON.parse(readFileSync(join(dir, templateFile), "utf8")) as MutableTemplate;
  for (const resource of Object.values(template.Resources)) {
    const variables = (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
      ?.Variables;
    if (resource.Type === "AWS::Lambda::Function" && variables?.SVC_ISSUER) variables.SVC_ISSUER = issuer;
  }
  change(template);
  writeFileSync(join(copy, templateFile), JSON.stringify(template));
  return copy;
}
