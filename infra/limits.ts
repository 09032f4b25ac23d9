/**
 * AWS quotas that a synthesized template can break, checked offline (test/infra/limits.test.ts)
 * so the first deploy is not where we learn of them (docs/decisions/stack-limits.md).
 */
export const LIMITS = {
  /** CloudFormation: resources per stack. */
  resources: 500,
  /** CloudFormation: a template body read from S3, as `cdk deploy` uploads it (1 MB, counted as 10^6 bytes). */
  templateBytes: 1_000_000,
  /** API Gateway HTTP API: routes per API (the default quota). */
  routesPerApi: 300,
  /** API Gateway HTTP API: integrations per API. */
  integrationsPerApi: 300,
  /** IAM: all inline policies of one role together, in characters, whitespace not counted. */
  rolePolicyCharacters: 10_240,
  /** Lambda: a function's environment, keys and values together, in bytes. */
  environmentBytes: 4096,
  /** Lambda: a function's deployment package unzipped (no layers here). */
  assetBytes: 250 * 1024 * 1024,
  alarmName: 255,
  logGroupName: 512,
  functionName: 64,
  dashboardName: 255,
} as const;

export type LimitName = keyof typeof LIMITS;

/**
 * The largest operator settings JSON (SVC_CONFIG) infra/app.ts lets into every function's
 * environment: the rest of LIMITS.environmentBytes is left for the other variables.
 */
export const MAX_SETTINGS_JSON_BYTES = 3072;

/** One measurement against one limit: the largest subject's, or each subject over it. */
export interface Figure {
  limit: LimitName;
  /** What was measured: the stack, an API, a role, a function (logical ID or endpoint group). */
  subject: string;
  value: number;
  max: number;
}

export interface LimitsReport {
  /** One row per limit: the largest value found. */
  figures: Figure[];
  /** Every subject past its limit; empty when the stack deploys within them. */
  violations: Figure[];
}

interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  [section: string]: unknown;
}

export interface LimitsOptions {
  /** The stack's name: CloudFormation puts it into every name it generates. */
  stackName: string;
  /** Unzipped asset sizes in bytes, by what was built (allFunctionsAssetBytes in infra/bundling.ts). */
  assetBytes?: Record<string, number>;
}

// Pseudo parameters at their longest: aws-us-gov, a 14-character region code (and room),
// amazonaws.com.cn.
const PSEUDO_PARAMETER_LENGTHS: Record<string, number> = {
  "AWS::Partition": 10,
  "AWS::Region": 16,
  "AWS::AccountId": 12,
  "AWS::URLSuffix": 16,
  "AWS::NoValue": 0,
};
/** arn:<partition>:cloudformation:<region>:<account>:stack/<name>/<36-character id>. */
const STACK_ID_FRAME = 110;
/** What CloudFormation appends to a name it generates (13 characters) and Secrets Manager after it (7). */
const GENERATED_SUFFIX = 20;
/** Room after an ARN's name that some attributes add: a table stream's /stream/<timestamp> is 31. */
const ATTRIBUTE_TAIL = 32;

/**
 * The characters a Ref or Fn::GetAtt of `logicalId` can become at its longest: an ARN in the
 * longest partition and region, of the resource's service and type, around the name
 * CloudFormation generates (stack name, logical ID, suffix) or the name the template gives, and
 * room for a qualifier after it. Over what any attribute of our resources really is (a Ref of a
 * table is just its name), so a figure under the limit holds in every region.
 */
function referenceLength(logicalId: string, template: CfnTemplate, stackName: string): number {
  const resource = template.Resources[logicalId];
  if (!resource) throw new Error(`cannot size a reference to ${logicalId}: no such resource`);
  const [, service = "", type = ""] = resource.Type.split("::");
  const frame = "arn:".length + 10 + 1 + service.length + 1 + 16 + 1 + 12 + 1 + type.length + 1;
  const given = Object.entries(resource.Properties ?? {})
    .filter(([key, value]) => key.endsWith("Name") && typeof value === "string")
    .map(([, value]) => (value as string).length);
  const generated = stackName.length + 1 + logicalId.length + 1 + GENERATED_SUFFIX;
  return frame + Math.max(generated, ...given) + ATTRIBUTE_TAIL;
}

function isIntrinsic(value: object): value is Record<string, unknown> {
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === "Ref" || keys[0].startsWith("Fn::"));
}

/**
 * The value with every intrinsic function replaced by a string of `x` as long as the longest it
 * could become. One it cannot size throws, naming it: a guess there could hide a broken limit.
 */
export function resolved(value: unknown, template: CfnTemplate, stackName: string): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(item, template, stackName));
  if (value === null || typeof value !== "object") return value;
  if (isIntrinsic(value)) return resolvedString(value, template, stackName);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolved(item, template, stackName)]));
}

function resolvedString(value: unknown, template: CfnTemplate, stackName: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null || typeof value !== "object" || !isIntrinsic(value)) {
    throw new Error(`cannot size ${JSON.stringify(value)} as a string`);
  }
  const [[fn, argument]] = Object.entries(value);
  const placeholder = (length: number) => "x".repeat(length);
  const reference = (name: string) => {
    if (name in PSEUDO_PARAMETER_LENGTHS) return placeholder(PSEUDO_PARAMETER_LENGTHS[name]);
    if (name === "AWS::StackName") return stackName;
    if (name === "AWS::StackId") return placeholder(STACK_ID_FRAME + stackName.length);
    return placeholder(referenceLength(name.split(".")[0], template, stackName));
  };
  switch (fn) {
    case "Ref":
      return reference(argument as string);
    case "Fn::GetAtt":
      return reference(Array.isArray(argument) ? (argument[0] as string) : (argument as string));
    case "Fn::Join": {
      const [delimiter, parts] = argument as [string, unknown];
      if (!Array.isArray(parts)) throw new Error(`cannot size Fn::Join over ${JSON.stringify(parts)}`);
      return parts.map((part) => resolvedString(part, template, stackName)).join(delimiter);
    }
    case "Fn::Sub": {
      const [text, variables = {}] = (Array.isArray(argument) ? argument : [argument]) as [
        string,
        Record<string, unknown>?,
      ];
      return text.replace(/\$\{(!?)([^}]+)\}/g, (_, literal: string, name: string) => {
        if (literal) return `\${${name}}`;
        if (name in variables) return resolvedString(variables[name], template, stackName);
        return reference(name);
      });
    }
    default:
      throw new Error(`cannot size ${fn}: teach infra/limits.ts its longest value`);
  }
}

function resourcesOfType(template: CfnTemplate, type: string): Array<[string, Record<string, unknown>]> {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([id, resource]) => [id, resource.Properties ?? {}]);
}

/** The logical ID a `{ Ref: id }` names, else the value as JSON (an imported role or API). */
function referencedId(value: unknown): string {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  return typeof ref === "string" ? ref : JSON.stringify(value);
}

function countBy(ids: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/**
 * Every measured subject of every limit, in the template as CloudFormation would receive it.
 * Names the template leaves unset are generated by CloudFormation within the limits and are
 * not measured.
 */
function measurements(template: CfnTemplate, { stackName, assetBytes = {} }: LimitsOptions): Figure[] {
  const figure = (limit: LimitName, subject: string, value: number): Figure => ({
    limit,
    subject,
    value,
    max: LIMITS[limit],
  });
  const text = (value: unknown) => resolvedString(resolved(value, template, stackName), template, stackName);

  const perApi = (type: string) => [
    ...countBy(resourcesOfType(template, type).map(([, props]) => referencedId(props.ApiId))).entries(),
  ];

  // IAM counts the policy documents as JSON without whitespace; JSON.stringify adds none.
  const policyCharacters = new Map<string, number>();
  const addPolicy = (role: string, document: unknown) =>
    policyCharacters.set(
      role,
      (policyCharacters.get(role) ?? 0) + JSON.stringify(resolved(document, template, stackName)).length,
    );
  for (const [, props] of resourcesOfType(template, "AWS::IAM::Policy")) {
    for (const role of (props.Roles as unknown[] | undefined) ?? [])
      addPolicy(referencedId(role), props.PolicyDocument);
  }
  for (const [id, props] of resourcesOfType(template, "AWS::IAM::Role")) {
    for (const policy of (props.Policies as Array<{ PolicyDocument: unknown }> | undefined) ?? []) {
      addPolicy(id, policy.PolicyDocument);
    }
  }

  const functions = resourcesOfType(template, "AWS::Lambda::Function");
  const environmentBytes = ([id, props]: [string, Record<string, unknown>]) => {
    const variables = (props.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const bytes = Object.entries(variables).reduce(
      (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(text(value)),
      0,
    );
    return figure("environmentBytes", id, bytes);
  };

  const names = (limit: LimitName, type: string, property: string) =>
    resourcesOfType(template, type)
      .filter(([, props]) => props[property] !== undefined)
      .map(([id, props]) => figure(limit, id, text(props[property]).length));

  return [
    figure("resources", "stack", Object.keys(template.Resources).length),
    // As `cdk synth` writes the file: indented by one space.
    figure("templateBytes", "stack", Buffer.byteLength(JSON.stringify(template, undefined, 1))),
    ...perApi("AWS::ApiGatewayV2::Route").map(([api, count]) => figure("routesPerApi", api, count)),
    ...perApi("AWS::ApiGatewayV2::Integration").map(([api, count]) => figure("integrationsPerApi", api, count)),
    ...[...policyCharacters].map(([role, characters]) => figure("rolePolicyCharacters", role, characters)),
    ...functions.map(environmentBytes),
    ...Object.entries(assetBytes).map(([fn, bytes]) => figure("assetBytes", fn, bytes)),
    ...names("alarmName", "AWS::CloudWatch::Alarm", "AlarmName"),
    ...names("logGroupName", "AWS::Logs::LogGroup", "LogGroupName"),
    ...names("functionName", "AWS::Lambda::Function", "FunctionName"),
    ...names("dashboardName", "AWS::CloudWatch::Dashboard", "DashboardName"),
  ];
}

/** The largest figure of each limit (none measured: a row of 0 under "none set") and every one past its limit. */
export function stackLimits(template: CfnTemplate, options: LimitsOptions): LimitsReport {
  const all = measurements(template, options);
  const figures = (Object.keys(LIMITS) as LimitName[]).map((limit) =>
    all
      .filter((f) => f.limit === limit)
      .reduce<Figure>((largest, f) => (f.value > largest.value ? f : largest), {
        limit,
        subject: "none set",
        value: 0,
        max: LIMITS[limit],
      }),
  );
  return { figures, violations: all.filter((f) => f.value > f.max) };
}

/** The report as a table for a test's output: limit, subject, value, maximum, share. */
export function limitsTable({ figures }: LimitsReport): string {
  const rows = figures.map((f) => [
    f.limit,
    f.subject,
    String(f.value),
    String(f.max),
    `${((f.value / f.max) * 100).toFixed(1)}%`,
  ]);
  const header = ["limit", "largest", "value", "max", "used"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows].map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join("  ")).join("\n");
}
