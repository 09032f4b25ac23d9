import type { AddressInfo } from "node:net";
import { relative } from "node:path";
import { config, setEnvDefaults } from "../config";
import { LOCAL_TOOL_ENV } from "../config/environment";
import { ConfigError } from "../config/validation";
import { weakSecretWarnings } from "../domain/clients/client";
import { type AssemblyStack, startAssemblyStack } from "./assembly/assembly-stack";
import { ensureBootstrapClient } from "./bootstrap";
import { DATA_KEY_FILE, ensureLocalDataKey } from "./data-key";
import { JavaMissingError, type RunningDynamo, startDynamoLocal } from "./dynamodb-local";
import { startEventStream } from "./event-stream";
import { createGateway } from "./gateway";
import { ensureSampleClients } from "./sample-clients";
import { BOOTSTRAP_FILE, LOCAL_DATA_DIR, prepareTable } from "./stack";

/** `--synth [dir]`: serve the cloud assembly in dir (default cdk.out) instead of the sources. */
function synthDir(argv: string[]): string | undefined {
  const at = argv.indexOf("--synth");
  if (at < 0) return undefined;
  const next = argv[at + 1];
  return next && !next.startsWith("--") ? next : "cdk.out";
}

/** `npm start` (docs/configuration.md): DynamoDB Local, table, signing key, bootstrap client, gateway. */
async function main(): Promise<void> {
  const assemblyDir = synthDir(process.argv.slice(2));
  setEnvDefaults(LOCAL_TOOL_ENV);
  // The issuer is the local gateway itself, so discovery and the sign-in pages work from a browser.
  setEnvDefaults({ SVC_ISSUER: `http://127.0.0.1:${config().port}/svc` });
  const dataKeySource = ensureLocalDataKey(config().inMemory ? undefined : DATA_KEY_FILE);
  const settings = config();
  let dynamo: RunningDynamo | undefined;
  let events: { stop(): Promise<void> } | undefined;
  let assembly: AssemblyStack | undefined;
  let gateway: ReturnType<typeof createGateway> | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    gateway?.close();
    gateway?.closeAllConnections();
    await events?.stop();
    await assembly?.stop();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGHUP", () => void stop("SIGHUP"));
  // A supervisor that dies without passing on its signal (npm killed hard, a closed
  // terminal) must not leave DynamoDB Local running: being orphaned is a stop too.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop("parent process exited");
  }, 500).unref();

  dynamo = await startDynamoLocal({
    port: settings.dynamodbPort,
    dataDir: settings.inMemory ? undefined : LOCAL_DATA_DIR,
    waitSeconds: settings.dynamodbWaitSeconds,
    onWaiting: (seconds) =>
      console.log(
        `waiting for DynamoDB Local: ${seconds} s of ${settings.dynamodbWaitSeconds} (DYNAMODB_WAIT_SECONDS)`,
      ),
  });
  console.log(
    `DynamoDB Local on ${dynamo.endpoint} (${settings.inMemory ? "in memory" : `data in ${LOCAL_DATA_DIR}/`}), table ${settings.tableName}`,
  );
  await prepareTable(dynamo.endpoint);
  if (assemblyDir) {
    assembly = await startAssemblyStack({
      dir: assemblyDir,
      apiEndpoint: `http://127.0.0.1:${settings.port}`,
      tableName: settings.tableName,
      region: settings.region,
      dynamodbEndpoint: dynamo.endpoint,
      // The data key secret holds the local key's text (docs/decisions/cloud-assembly-run.md).
      secretString: settings.dataKey?.kind === "inline" ? settings.dataKey.material.toString("base64") : "",
      outboxFile: settings.outboxFile,
      eventsFile: settings.events.file,
      onDenial: (denial) =>
        console.error(`denied by its role: ${denial.functionId} ${denial.action} on ${denial.resource || "-"}`),
    });
    const { routes, functions } = assembly.assembly;
    console.log(
      `cloud assembly ${assemblyDir}: ${routes.length} routes, ${functions.size} functions, each call checked against its role`,
    );
    gateway = createGateway({ backend: assembly.backend, cors: assembly.cors });
    await assembly.startEventSource();
  } else {
    gateway = createGateway();
    events = await startEventStream(dynamo.endpoint);
  }
  console.log(`identity events to ${relative(process.cwd(), settings.events.file)} (docs/events.md)`);
  const client = await ensureBootstrapClient(settings.inMemory ? undefined : BOOTSTRAP_FILE);
  for (const warning of weakSecretWarnings({ clientId: client.clientId, secret: client.secret, scopes: [] })) {
    console.warn(`warning: bootstrap client: ${warning}`);
  }
  console.log(`bootstrap client (${client.source}): id ${client.clientId}`);
  if (client.source !== "environment") console.log(`bootstrap client secret: ${client.secret}`);
  const samples = await ensureSampleClients();
  if (samples.length > 0) console.log(`registered for the sample events (events/): ${samples.join(", ")}`);
  console.log(
    `data key (${dataKeySource}${dataKeySource === "environment" ? ": SVC_DATA_KEY" : settings.inMemory ? ", in memory" : `, in ${DATA_KEY_FILE}`})`,
  );
  const providers = settings.settings.federation.providers.map((p) => `${p.type}:${p.name}`);
  if (providers.length > 0) console.log(`external providers: ${providers.join(", ")}`);

  const server = gateway;
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(settings.port, "127.0.0.1", () => done());
  });
  const { port } = server.address() as AddressInfo;
  console.log(`svc ready at http://127.0.0.1:${port}`);
  // DESIGN 6b: the consoles' addresses follow the ready line.
  console.log(`admin console: http://127.0.0.1:${port}/svc/console/`);
  console.log(`account console: http://127.0.0.1:${port}/svc/account`);
}

main().catch((error: unknown) => {
  if (error instanceof JavaMissingError || error instanceof ConfigError) {
    console.error(error.message);
  } else if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    console.error(`port ${config().port} is taken: set PORT to a free port`);
  } else {
    console.error(`npm start failed: ${(error as Error).message}`);
  }
  process.exit(1);
});
