import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * What `cdk synth` wrote to cdk.out, read as CloudFormation and `cdk deploy` would read it:
 * the stack's template, its routes and their integrations, each function's asset folder,
 * handler, environment, memory and timeout, and each role's policies. Nothing here comes
 * from the sources: a route wired to the wrong function or a dropped variable shows.
 */

type Json = unknown;

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, Json>;
}

export interface Template {
  Resources: Record<string, TemplateResource>;
}

export interface AssemblyFunction {
  logicalId: string;
  /** Absolute path of the function's unzipped asset (what Lambda unpacks to /var/task). */
  assetDir: string;
  /** `file.export`, as Lambda reads it. */
  handler: string;
  runtime: string;
  memoryMb: number;
  timeoutSeconds: number;
  /** The template's variables, intrinsics unresolved. */
  environment: Record<string, Json>;
  roleId: string;
  tracing: boolean;
}

export interface AssemblyRoute {
  /** `METHOD /path` or `$default`. */
  routeKey: string;
  functionId: string;
}

export interface PolicyDocument {
  Version?: string;
  Statement: Array<Record<string, Json>>;
}

export interface CloudAssembly {
  dir: string;
  stackName: string;
  template: Template;
  routes: AssemblyRoute[];
  functions: Map<string, AssemblyFunction>;
  /** The identity policies attached to each role (inline AWS::IAM::Policy and the role's own), unresolved. */
  policiesOf(roleId: string): PolicyDocument[];
  /** The table's partition key attribute, for dynamodb:LeadingKeys. */
  partitionKeyOf(tableId: string): string | undefined;
  /** The function a DynamoDB stream event source mapping feeds, with the stream's table. */
  streamConsumers: Array<{ functionId: string; tableId: string; batchSize: number }>;
  /** The HTTP API's CORS configuration, as the template states it. */
  cors?: {
    allowOrigins: string[];
    allowMethods: string[];
    allowHeaders: string[];
    exposeHeaders: string[];
    maxAge?: number;
  };
}

export class AssemblyError extends Error {}

function readJson(path: string): Json {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new AssemblyError(`${path}: ${(error as Error).message} (run npx cdk synth first)`);
  }
}

/** A `{ Ref: id }` or `{ "Fn::GetAtt": [id, attr] }`'s logical id. */
function referencedId(value: Json): string | undefined {
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, Json>;
  if (typeof v.Ref === "string") return v.Ref;
  const getAtt = v["Fn::GetAtt"];
  if (Array.isArray(getAtt) && typeof getAtt[0] === "string") return getAtt[0];
  return undefined;
}

/** The integration id in a route's `Target` (`integrations/<id>`, joined). */
function integrationIdOf(target: Json): string | undefined {
  const join = (target as { "Fn::Join"?: [string, Json[]] } | undefined)?.["Fn::Join"];
  if (!join) return undefined;
  for (const part of join[1]) {
    const id = referencedId(part);
    if (id) return id;
  }
  return undefined;
}

export function readCloudAssembly(dir: string, stackName = "SvcIdentity"): CloudAssembly {
  const root = resolve(dir);
  const manifest = readJson(join(root, "manifest.json")) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const artifact = manifest.artifacts[stackName];
  if (artifact?.type !== "aws:cloudformation:stack" || !artifact.properties?.templateFile) {
    throw new AssemblyError(`${root}: no stack ${stackName} in manifest.json`);
  }
  const template = readJson(join(root, artifact.properties.templateFile)) as Template;
  const assets = readJson(join(root, `${stackName}.assets.json`)) as {
    files: Record<
      string,
      { source: { path: string; packaging?: string }; destinations: Record<string, { objectKey: string }> }
    >;
  };
  // What `cdk deploy` uploads under each object key: the function's Code.S3Key names one.
  const assetByObjectKey = new Map<string, string>();
  for (const file of Object.values(assets.files)) {
    for (const destination of Object.values(file.destinations)) {
      assetByObjectKey.set(destination.objectKey, resolve(root, file.source.path));
    }
  }

  const resources = template.Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

  const functions = new Map<string, AssemblyFunction>();
  for (const [id, resource] of ofType("AWS::Lambda::Function")) {
    const p = resource.Properties ?? {};
    const code = p.Code as { S3Key?: string } | undefined;
    const assetDir = code?.S3Key ? assetByObjectKey.get(code.S3Key) : undefined;
    if (!assetDir) throw new AssemblyError(`${id}: its code is no asset of this assembly`);
    const roleId = referencedId(p.Role);
    if (!roleId) throw new AssemblyError(`${id}: no role of this stack`);
    functions.set(id, {
      logicalId: id,
      assetDir,
      handler: String(p.Handler),
      runtime: String(p.Runtime),
      // CloudFormation's defaults when the template leaves them out.
      memoryMb: Number(p.MemorySize ?? 128),
      timeoutSeconds: Number(p.Timeout ?? 3),
      environment: ((p.Environment as { Variables?: Record<string, Json> } | undefined)?.Variables ?? {}) as Record<
        string,
        Json
      >,
      roleId,
      tracing: (p.TracingConfig as { Mode?: string } | undefined)?.Mode === "Active",
    });
  }

  const integrationTarget = new Map<string, string>();
  for (const [id, resource] of ofType("AWS::ApiGatewayV2::Integration")) {
    const fn = referencedId(resource.Properties?.IntegrationUri);
    if (fn && functions.has(fn)) integrationTarget.set(id, fn);
  }
  const routes: AssemblyRoute[] = [];
  for (const [id, resource] of ofType("AWS::ApiGatewayV2::Route")) {
    const integration = integrationIdOf(resource.Properties?.Target);
    const functionId = integration ? integrationTarget.get(integration) : undefined;
    if (!functionId) throw new AssemblyError(`route ${id}: its target is no Lambda integration of this stack`);
    routes.push({ routeKey: String(resource.Properties?.RouteKey), functionId });
  }

  const policies = new Map<string, PolicyDocument[]>();
  const attach = (roleId: string, document: PolicyDocument) => {
    policies.set(roleId, [...(policies.get(roleId) ?? []), document]);
  };
  for (const [, resource] of ofType("AWS::IAM::Policy")) {
    for (const role of (resource.Properties?.Roles as Json[] | undefined) ?? []) {
      const roleId = referencedId(role);
      if (roleId) attach(roleId, resource.Properties?.PolicyDocument as PolicyDocument);
    }
  }
  for (const [roleId, resource] of ofType("AWS::IAM::Role")) {
    for (const inline of (resource.Properties?.Policies as Array<{ PolicyDocument: PolicyDocument }> | undefined) ??
      []) {
      attach(roleId, inline.PolicyDocument);
    }
  }

  const streamConsumers: CloudAssembly["streamConsumers"] = [];
  for (const [, resource] of ofType("AWS::Lambda::EventSourceMapping")) {
    const p = resource.Properties ?? {};
    const functionId = referencedId(p.FunctionName);
    const tableId = referencedId(p.EventSourceArn);
    if (functionId && tableId && resources[tableId]?.Type.startsWith("AWS::DynamoDB::")) {
      streamConsumers.push({ functionId, tableId, batchSize: Number(p.BatchSize ?? 100) });
    }
  }

  const api = ofType("AWS::ApiGatewayV2::Api")[0]?.[1];
  const corsConfig = api?.Properties?.CorsConfiguration as
    | {
        AllowOrigins?: string[];
        AllowMethods?: string[];
        AllowHeaders?: string[];
        ExposeHeaders?: string[];
        MaxAge?: number;
      }
    | undefined;

  return {
    dir: root,
    stackName,
    template,
    routes,
    functions,
    policiesOf: (roleId) => policies.get(roleId) ?? [],
    partitionKeyOf(tableId) {
      const schema = resources[tableId]?.Properties?.KeySchema as Array<{ AttributeName: string; KeyType: string }>;
      return schema?.find((k) => k.KeyType === "HASH")?.AttributeName;
    },
    streamConsumers,
    ...(corsConfig && {
      cors: {
        allowOrigins: corsConfig.AllowOrigins ?? [],
        allowMethods: corsConfig.AllowMethods ?? [],
        allowHeaders: corsConfig.AllowHeaders ?? [],
        exposeHeaders: corsConfig.ExposeHeaders ?? [],
        maxAge: corsConfig.MaxAge,
      },
    }),
  };
}
