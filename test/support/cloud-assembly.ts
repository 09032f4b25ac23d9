import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { config, setEnvDefaults } from "../../lib/config";
import { LOCAL_TOOL_ENV } from "../../lib/config/environment";
import { type AssemblyStack, startAssemblyStack } from "../../lib/local/assembly/assembly-stack";
import { freePort } from "../../lib/local/dynamodb-local";
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

/**
 * A port for the gateway, and this file's issuer set to it as the template's issuer will
 * resolve (the API's endpoint plus /svc), so tokens the tests make in process are the
 * functions' own. Before the file's first token. Passkey ceremonies in a browser need the
 * host `localhost`: browsers refuse an IP address as RP ID.
 */
export async function assemblyPort(host: "127.0.0.1" | "localhost" = "127.0.0.1"): Promise<number> {
  const port = await freePort();
  process.env.SVC_ISSUER = `http://${host}:${port}/svc`;
  setEnvDefaults({});
  return port;
}

/**
 * The cloud assembly in `dir` behind the local gateway on `port`, on this file's table:
 * every request runs the bundled function the template routes it to, with its role
 * enforced. `secretString` is the data key secret's value; the functions' output goes to
 * a file. The API's endpoint names `host`, as the file's issuer does.
 */
export async function serveAssembly(
  dir: string,
  port: number,
  secretString: string,
  host: "127.0.0.1" | "localhost" = "127.0.0.1",
): Promise<ServedAssembly> {
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
  const gateway = createGateway({ backend: recording, cors: stack.cors });
  await new Promise<void>((done) => gateway.listen(port, "127.0.0.1", () => done()));
  return {
    base,
    answered,
    stack,
    async stop() {
      gateway.closeAllConnections();
      gateway.close();
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
