import { createSocket, type Socket } from "node:dgram";
import type { AddressInfo } from "node:net";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { LOCAL_TOOL_ENV } from "../../config/environment";
import type { CorsSettings } from "../../http/cors";
import type { HttpResult } from "../../http/route";
import { createRouteMatcher } from "../../http/route-matcher";
import { startEventStream } from "../event-stream";
import type { GatewayBackend } from "../gateway";
import { type AwsEndpoint, type CallingRole, startAwsEndpoint } from "./aws-endpoint";
import { type AssemblyFunction, type CloudAssembly, readCloudAssembly } from "./cloud-assembly";
import { FunctionError, type LambdaContainers, lambdaContainers } from "./lambda-containers";
import { type LocalWorld, resolveValue } from "./local-world";
import { type Denial, type Grant, globMatches, rolePolicies } from "./role-policies";

/**
 * The stack as `cdk deploy` would create it from cdk.out, run on this machine: the
 * template's routes to the template's functions, each function's bundled asset in a
 * Lambda-like process with the template's environment, every AWS call it makes put to
 * its role's policies, DynamoDB Local as the table (docs/deployment.md, "Run what cdk
 * deploy ships").
 */

export interface AssemblyStackOptions {
  /** The cloud assembly (`npx cdk synth` writes cdk.out). */
  dir: string;
  stackName?: string;
  /** The local gateway's base URL: the HTTP API's ApiEndpoint. */
  apiEndpoint: string;
  tableName: string;
  region: string;
  dynamodbEndpoint: string;
  /** SecretString of every secret the template creates (the data key). */
  secretString: string;
  outboxFile: string;
  eventsFile: string;
  /** The functions' own output (their log lines and metrics); default: this process's. */
  logFile?: string;
  node?: string;
  /** Told of each call a role refused, as it happens. */
  onDenial?(denial: Denial): void;
}

/** One function's role against the calls the run made, by action. */
export interface PermissionGap {
  functionId: string;
  /** Granted, and some call used it. */
  used: string[];
  /** Granted, and no call of the run used it. */
  unused: string[];
  /** Granted for Lambda itself (its logs, X-Ray, an event source mapping's failure queue), not for the code. */
  platform: string[];
}

export interface AssemblyStack {
  assembly: CloudAssembly;
  backend: GatewayBackend;
  /** The HTTP API's CORS origins, as the template configures them. */
  cors: CorsSettings;
  endpoint: AwsEndpoint;
  containers: LambdaContainers;
  /**
   * Lambda's event source mapping: the table's stream, in batches, to the function the
   * template names, once that function's role allows reading the stream.
   */
  startEventSource(): Promise<void>;
  invokeFunction(functionId: string, event: unknown): Promise<unknown>;
  /** Per function, what its role grants that the run never used. */
  permissionGaps(): PermissionGap[];
  stop(): Promise<void>;
}

/** Granted to the function's role for Lambda's own use rather than the code's calls. */
function isPlatformGrant(grant: Grant): boolean {
  return /^(logs|xray|sqs):/i.test(grant.action);
}

/** API Gateway's reading of a payload 2.0 answer: a result without statusCode is a 200 JSON body. */
function asHttpResult(result: unknown): HttpResult & { isBase64Encoded?: boolean; cookies?: string[] } {
  if (result && typeof result === "object" && "statusCode" in result) {
    return result as HttpResult & { isBase64Encoded?: boolean; cookies?: string[] };
  }
  return {
    statusCode: 200,
    headers: { "content-type": "application/json" },
    body: typeof result === "string" ? result : JSON.stringify(result ?? null),
  };
}

async function discardingUdp(): Promise<Socket> {
  const socket = createSocket("udp4");
  socket.on("message", () => undefined);
  await new Promise<void>((done) => socket.bind(0, "127.0.0.1", () => done()));
  return socket;
}

export async function startAssemblyStack(options: AssemblyStackOptions): Promise<AssemblyStack> {
  const assembly = readCloudAssembly(options.dir, options.stackName);
  const world: LocalWorld = { region: options.region, tableName: options.tableName, apiEndpoint: options.apiEndpoint };
  const resolve = (value: unknown) => resolveValue(assembly.template, world, value);
  const tableIds = Object.entries(assembly.template.Resources)
    .filter(([, r]) => r.Type.startsWith("AWS::DynamoDB::"))
    .map(([id]) => id);

  const roles = new Map<string, CallingRole>();
  const accessKeyOf = new Map<string, string>();
  for (const fn of assembly.functions.values()) {
    const accessKeyId = `ASIALOCAL${fn.logicalId.toUpperCase()}`;
    accessKeyOf.set(fn.logicalId, accessKeyId);
    roles.set(accessKeyId, {
      functionId: fn.logicalId,
      policies: rolePolicies(
        fn.roleId,
        resolve(assembly.policiesOf(fn.roleId)) as ReturnType<typeof assembly.policiesOf>,
      ),
    });
  }
  const secretArns = new Set(
    Object.entries(assembly.template.Resources)
      .filter(([, r]) => r.Type === "AWS::SecretsManager::Secret")
      .map(([id]) => String(resolve({ Ref: id }))),
  );
  const endpoint = await startAwsEndpoint({
    scope: {
      region: options.region,
      // The template's one table, whatever physical name a call gives it.
      partitionKeyOf: () => assembly.partitionKeyOf(tableIds[0]),
    },
    dynamodbEndpoint: options.dynamodbEndpoint,
    roles,
    secretValue: (arn) => (secretArns.has(arn) ? options.secretString : undefined),
    outboxFile: options.outboxFile,
    eventsFile: options.eventsFile,
    onDenial: options.onDenial,
  });
  // Where X-Ray segments go: read and dropped, so the tracer runs as on Lambda.
  const xray = await discardingUdp();

  const containers = lambdaContainers({
    region: options.region,
    logFile: options.logFile,
    node: options.node,
    environmentOf(fn: AssemblyFunction) {
      const variables = Object.fromEntries(Object.entries(fn.environment).map(([k, v]) => [k, String(resolve(v))]));
      return {
        ...variables,
        ...LOCAL_TOOL_ENV,
        // Not a variable Lambda sets: it points the SDK's every client at the local AWS endpoint.
        AWS_ENDPOINT_URL: endpoint.url,
        AWS_ACCESS_KEY_ID: accessKeyOf.get(fn.logicalId) ?? "",
        AWS_SECRET_ACCESS_KEY: "local",
        AWS_SESSION_TOKEN: "local",
        ...(fn.tracing && {
          AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(xray.address() as AddressInfo).port}`,
          AWS_XRAY_CONTEXT_MISSING: "LOG_ERROR",
        }),
      };
    },
  });

  const routes = assembly.routes.filter((r) => r.routeKey !== "$default");
  const fallback = assembly.routes.find((r) => r.routeKey === "$default")?.functionId ?? "";
  const matchRoute = createRouteMatcher(
    routes.map((r) => {
      const [method, path] = r.routeKey.split(" ");
      return { method, path, routeKey: r.routeKey, functionId: r.functionId };
    }) as Array<{ method: "GET"; path: string; routeKey: string; functionId: string }>,
  );

  async function invokeFunction(functionId: string, event: unknown): Promise<unknown> {
    const fn = assembly.functions.get(functionId);
    if (!fn) throw new Error(`no function ${functionId} in the assembly`);
    return containers.invoke(fn, event);
  }

  const backend: GatewayBackend = {
    fallback,
    match(method, path) {
      const match = matchRoute(method, path);
      return match.kind === "route"
        ? { fn: match.route.functionId, routeKey: match.route.routeKey, params: match.params }
        : undefined;
    },
    async invoke(fn, event: APIGatewayProxyEventV2) {
      try {
        return asHttpResult(await invokeFunction(fn, event));
      } catch (error) {
        if (!(error instanceof FunctionError)) throw error;
        // What API Gateway answers when the function failed or timed out.
        console.error(`lambda ${error.message}`);
        return {
          statusCode: 500,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ message: "Internal Server Error" }),
        };
      }
    },
  };

  const consumer = assembly.streamConsumers[0];
  let eventSource: { stop(): Promise<void> } | undefined;
  async function startEventSource(): Promise<void> {
    if (!consumer || eventSource) return;
    const streamArn = String(resolve({ "Fn::GetAtt": [consumer.tableId, "StreamArn"] }));
    // What the event source mapping reads with the function's role; it is given the stream's
    // ARN, so it needs no ListStreams.
    const reads = [
      { action: "dynamodb:DescribeStream", resource: streamArn },
      { action: "dynamodb:GetShardIterator", resource: streamArn },
      { action: "dynamodb:GetRecords", resource: streamArn },
    ];
    for (const read of reads) await endpoint.authorize(consumer.functionId, { ...read, context: {} });
    if (endpoint.denials().some((d) => d.functionId === consumer.functionId)) return;
    eventSource = await startEventStream(options.dynamodbEndpoint, (batch) =>
      invokeFunction(consumer.functionId, batch),
    );
  }

  return {
    assembly,
    backend,
    cors: { allowedOrigins: assembly.cors?.allowOrigins ?? [] },
    endpoint,
    containers,
    startEventSource,
    invokeFunction,
    permissionGaps() {
      const calls = endpoint.allowed();
      return [...assembly.functions.values()].map((fn) => {
        const grants = [...roles.values()].find((r) => r.functionId === fn.logicalId)?.policies.grants() ?? [];
        const mine = calls.filter((c) => c.functionId === fn.logicalId);
        const usedGrant = (g: Grant) =>
          mine.some((c) => globMatches(g.action, c.action, true) && globMatches(g.resource, c.resource));
        const actions = (list: Grant[]) => [...new Set(list.map((g) => g.action))].sort();
        const code = grants.filter((g) => !isPlatformGrant(g));
        const used = actions(code.filter(usedGrant));
        return {
          functionId: fn.logicalId,
          used,
          unused: actions(code).filter((action) => !used.includes(action)),
          platform: actions(grants.filter(isPlatformGrant)),
        };
      });
    },
    async stop() {
      await eventSource?.stop();
      await containers.stop();
      await endpoint.stop();
      xray.close();
    },
  };
}
