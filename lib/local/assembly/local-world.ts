import type { Template } from "./cloud-assembly";

/**
 * The physical names a deploy would give the template's resources, chosen for the local
 * run: the table is the local table, the API's endpoint is the local gateway, every other
 * resource gets an ARN of its type in a fixed account. CloudFormation's intrinsics are
 * resolved against them, as the deploy resolves them against the created resources.
 */

export const LOCAL_ACCOUNT_ID = "123456789012";

export interface LocalWorld {
  region: string;
  tableName: string;
  /** The HTTP API's `ApiEndpoint`: the local gateway's base URL. */
  apiEndpoint: string;
}

type Json = unknown;

export class UnresolvableError extends Error {}

function arn(service: string, region: string, resource: string): string {
  return `arn:aws:${service}:${region}:${LOCAL_ACCOUNT_ID}:${resource}`;
}

/** `Ref` and `Fn::GetAtt` of a resource, by its type. */
function physical(template: Template, world: LocalWorld, id: string, attribute?: string): string {
  const type = template.Resources[id]?.Type;
  const { region } = world;
  const props = template.Resources[id]?.Properties ?? {};
  const named = (key: string) => (typeof props[key] === "string" ? (props[key] as string) : id);
  switch (type) {
    case "AWS::DynamoDB::GlobalTable":
    case "AWS::DynamoDB::Table": {
      const tableArn = arn("dynamodb", region, `table/${world.tableName}`);
      if (attribute === "Arn") return tableArn;
      if (attribute === "StreamArn") return `${tableArn}/stream/local`;
      return world.tableName;
    }
    case "AWS::ApiGatewayV2::Api":
      return attribute === "ApiEndpoint" ? world.apiEndpoint : "local";
    case "AWS::SecretsManager::Secret":
      return arn("secretsmanager", region, `secret:${id}-local`);
    case "AWS::Events::EventBus":
      return attribute === "Arn" ? arn("events", region, `event-bus/${named("Name")}`) : named("Name");
    case "AWS::Logs::LogGroup": {
      const name = named("LogGroupName");
      return attribute === "Arn" ? arn("logs", region, `log-group:${name}:*`) : name;
    }
    case "AWS::Lambda::Function":
      return attribute === "Arn" ? arn("lambda", region, `function:${id}`) : id;
    case "AWS::IAM::Role":
      return attribute === "Arn" ? `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${id}` : id;
    case "AWS::SQS::Queue":
      return attribute === "Arn"
        ? arn("sqs", region, id)
        : `https://sqs.${region}.amazonaws.com/${LOCAL_ACCOUNT_ID}/${id}`;
    case "AWS::SNS::Topic":
      return arn("sns", region, id);
    default:
      if (!type) throw new UnresolvableError(`no resource ${id} in the template`);
      return attribute ? arn("local", region, `${id}/${attribute}`) : id;
  }
}

function pseudo(world: LocalWorld, name: string): string | undefined {
  switch (name) {
    case "AWS::Partition":
      return "aws";
    case "AWS::Region":
      return world.region;
    case "AWS::AccountId":
      return LOCAL_ACCOUNT_ID;
    case "AWS::URLSuffix":
      return "amazonaws.com";
    case "AWS::StackName":
      return "SvcIdentity";
    default:
      return undefined;
  }
}

/** A template value with its intrinsics resolved (Ref, GetAtt, Join, Sub, Select, Split). */
export function resolveValue(template: Template, world: LocalWorld, value: Json): Json {
  if (Array.isArray(value)) return value.map((v) => resolveValue(template, world, v));
  if (!value || typeof value !== "object") return value;
  const v = value as Record<string, Json>;
  const keys = Object.keys(v);
  if (keys.length === 1) {
    const [fn] = keys;
    const arg = v[fn];
    const text = (x: Json) => String(resolveValue(template, world, x));
    switch (fn) {
      case "Ref":
        return pseudo(world, String(arg)) ?? physical(template, world, String(arg));
      case "Fn::GetAtt": {
        const [id, attribute] = Array.isArray(arg) ? arg : String(arg).split(".");
        return physical(template, world, String(id), String(attribute));
      }
      case "Fn::Join": {
        const [separator, parts] = arg as [string, Json[]];
        return (resolveValue(template, world, parts) as Json[]).map(String).join(separator);
      }
      case "Fn::Sub": {
        const [source, variables] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, Record<string, Json>];
        return source.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
          if (name in variables) return text(variables[name]);
          const [id, attribute] = name.split(".");
          return pseudo(world, name) ?? physical(template, world, id, attribute);
        });
      }
      case "Fn::Select": {
        const [index, list] = arg as [Json, Json];
        return (resolveValue(template, world, list) as Json[])[Number(resolveValue(template, world, index))];
      }
      case "Fn::Split": {
        const [separator, source] = arg as [string, Json];
        return text(source).split(separator);
      }
      default:
        if (fn.startsWith("Fn::")) throw new UnresolvableError(`${fn} is not resolved locally`);
    }
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveValue(template, world, x)]));
}
