import { LOCAL_ACCOUNT_ID } from "./local-world";

/**
 * What IAM authorizes for one AWS API request, as the service would ask it: the action,
 * the resource ARN and the request's condition keys. A request may need several (a
 * transaction: each item's action on its table).
 */

export interface AwsRequest {
  /** The SigV4 signing name: dynamodb, secretsmanager, ses, sns, events, lambda. */
  service: string;
  /** JSON protocols' X-Amz-Target operation, or the query protocol's Action. */
  operation: string;
  path: string;
  /** JSON body, or the query protocol's form fields. */
  input: Record<string, unknown>;
}

export interface IamCheck {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
}

export class UnknownCallError extends Error {}

export interface CallScope {
  region: string;
  /** The table's partition key attribute (dynamodb:LeadingKeys). */
  partitionKeyOf(tableName: string): string | undefined;
}

const arn = (service: string, region: string, resource: string) =>
  `arn:aws:${service}:${region}:${LOCAL_ACCOUNT_ID}:${resource}`;

type Item = Record<string, { S?: string; N?: string; B?: string }>;

function scalar(value: { S?: string; N?: string; B?: string } | undefined): string | undefined {
  return value?.S ?? value?.N ?? value?.B;
}

/**
 * dynamodb:LeadingKeys of a Query: the partition key value its key condition names (`#pk = :pk`,
 * or the attribute itself). None found: no key at all, since an empty set would satisfy ForAllValues.
 */
function queriedPartition(input: Record<string, unknown>, partitionKey: string | undefined): Record<string, string[]> {
  const expression = String(input.KeyConditionExpression ?? "");
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  for (const clause of expression.split(/\s+and\s+/i)) {
    const found = /^\s*\(?\s*([#\w]+)\s*=\s*(:\w+)\s*\)?\s*$/.exec(clause);
    if (!found) continue;
    const attribute = names[found[1]] ?? found[1];
    if (attribute === partitionKey) {
      const value = scalar(values[found[2]]);
      return value === undefined ? {} : { "dynamodb:LeadingKeys": [value] };
    }
  }
  return {};
}

function dynamodbChecks(request: AwsRequest, scope: CallScope): IamCheck[] {
  const { input, operation } = request;
  const tableArn = (name: unknown) => arn("dynamodb", scope.region, `table/${String(name)}`);
  const leading = (table: unknown, keys: Array<Item | undefined>): Record<string, string[]> => {
    const partitionKey = scope.partitionKeyOf(String(table));
    const values = keys.map((key) => (partitionKey ? scalar(key?.[partitionKey]) : undefined));
    const known = values.length > 0 && values.every((v) => v !== undefined);
    return known ? { "dynamodb:LeadingKeys": [...new Set(values as string[])] } : {};
  };
  const on = (action: string, table: unknown, context: Record<string, string | string[]> = {}, index?: unknown) => ({
    action: `dynamodb:${action}`,
    resource: index ? `${tableArn(table)}/index/${String(index)}` : tableArn(table),
    context,
  });
  switch (operation) {
    case "GetItem":
    case "DeleteItem":
    case "UpdateItem":
      return [on(operation, input.TableName, leading(input.TableName, [input.Key as Item]))];
    case "PutItem":
      return [on(operation, input.TableName, leading(input.TableName, [input.Item as Item]))];
    case "Query":
      return [
        on(
          operation,
          input.TableName,
          input.IndexName ? {} : queriedPartition(input, scope.partitionKeyOf(String(input.TableName))),
          input.IndexName,
        ),
      ];
    case "Scan":
    case "DescribeTable":
      return [on(operation, input.TableName, {}, input.IndexName)];
    case "BatchGetItem":
      return Object.entries(input.RequestItems as Record<string, { Keys: Item[] }>).map(([table, { Keys }]) =>
        on(operation, table, leading(table, Keys)),
      );
    case "BatchWriteItem":
      return Object.entries(
        input.RequestItems as Record<string, Array<Record<string, { Key?: Item; Item?: Item }>>>,
      ).map(([table, writes]) =>
        on(
          operation,
          table,
          leading(
            table,
            writes.map((w) => w.PutRequest?.Item ?? w.DeleteRequest?.Key),
          ),
        ),
      );
    case "TransactWriteItems":
      // IAM authorizes each item of a transaction as the single-item action it is.
      return (input.TransactItems as Array<Record<string, { TableName: string; Key?: Item; Item?: Item }>>).map(
        (entry) => {
          const [kind, item] = Object.entries(entry)[0];
          const action = {
            Put: "PutItem",
            Update: "UpdateItem",
            Delete: "DeleteItem",
            ConditionCheck: "ConditionCheckItem",
          }[kind];
          if (!action) throw new UnknownCallError(`TransactWriteItems: ${kind}`);
          return on(action, item.TableName, leading(item.TableName, [item.Item ?? item.Key]));
        },
      );
    case "TransactGetItems":
      return (input.TransactItems as Array<{ Get: { TableName: string; Key: Item } }>).map(({ Get }) =>
        on("GetItem", Get.TableName, leading(Get.TableName, [Get.Key])),
      );
    default:
      throw new UnknownCallError(`dynamodb ${operation}`);
  }
}

/** The sender identity SES authorizes: the address, as `identity/<address>` (a domain identity matches `identity/*` too). */
function sesIdentity(source: unknown, region: string): string {
  const address = /<([^>]+)>/.exec(String(source))?.[1] ?? String(source);
  return arn("ses", region, `identity/${address}`);
}

export function iamChecksOf(request: AwsRequest, scope: CallScope): IamCheck[] {
  const { service, operation, input, path } = request;
  const { region } = scope;
  switch (service) {
    case "dynamodb":
      return dynamodbChecks(request, scope);
    case "secretsmanager": {
      if (operation !== "GetSecretValue" && operation !== "DescribeSecret") {
        throw new UnknownCallError(`secretsmanager ${operation}`);
      }
      const id = String(input.SecretId);
      return [
        {
          action: `secretsmanager:${operation}`,
          resource: id.startsWith("arn:") ? id : arn("secretsmanager", region, `secret:${id}`),
          context: {},
        },
      ];
    }
    case "ses":
    case "email":
      if (operation !== "SendEmail" && operation !== "SendRawEmail") throw new UnknownCallError(`ses ${operation}`);
      return [{ action: `ses:${operation}`, resource: sesIdentity(input.Source, region), context: {} }];
    case "sns":
      if (operation !== "Publish") throw new UnknownCallError(`sns ${operation}`);
      // A phone number has no ARN: IAM authorizes a direct SMS against "*".
      return [{ action: "sns:Publish", resource: String(input.TopicArn ?? input.TargetArn ?? "*"), context: {} }];
    case "events": {
      if (operation !== "PutEvents") throw new UnknownCallError(`events ${operation}`);
      const buses = new Set(
        (input.Entries as Array<{ EventBusName?: string }>).map((e) => e.EventBusName ?? "default"),
      );
      return [...buses].map((bus) => ({
        action: "events:PutEvents",
        resource: bus.startsWith("arn:") ? bus : arn("events", region, `event-bus/${bus}`),
        context: {},
      }));
    }
    case "lambda": {
      const name = decodeURIComponent(/^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(path)?.[1] ?? "");
      if (!name) throw new UnknownCallError(`lambda ${path}`);
      return [
        {
          action: "lambda:InvokeFunction",
          resource: name.startsWith("arn:") ? name : arn("lambda", region, `function:${name}`),
          context: {},
        },
      ];
    }
    default:
      throw new UnknownCallError(`${service} ${operation}`);
  }
}
