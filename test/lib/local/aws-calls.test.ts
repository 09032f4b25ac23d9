import { describe, expect, it } from "vitest";
import { type AwsRequest, iamChecksOf, UnknownCallError } from "../../../lib/local/assembly/aws-calls";
import { rolePolicies } from "../../../lib/local/assembly/role-policies";

/**
 * What the local AWS endpoint of `npm start -- --synth` puts to a role for each SDK
 * request (lib/local/assembly/aws-calls.ts), and the simulator's verdict on it.
 */

const scope = { region: "eu-west-1", partitionKeyOf: () => "PK" };
const TABLE = "arn:aws:dynamodb:eu-west-1:123456789012:table/t";
const call = (service: string, operation: string, input: Record<string, unknown>, path = "/"): AwsRequest => ({
  service,
  operation,
  path,
  input,
});

describe("the IAM checks of an AWS request", () => {
  it("when DynamoDB reads an item, it is the action on the table with the item's partition as LeadingKeys", () => {
    expect(
      iamChecksOf(call("dynamodb", "GetItem", { TableName: "t", Key: { PK: { S: "USER#1" }, SK: { S: "A" } } }), scope),
    ).toEqual([{ action: "dynamodb:GetItem", resource: TABLE, context: { "dynamodb:LeadingKeys": ["USER#1"] } }]);
  });

  it("when a Query names its partition, LeadingKeys is that value; on an index, the index's ARN without it", () => {
    const query = {
      TableName: "t",
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)",
      ExpressionAttributeValues: { ":pk": { S: "SIGNING_KEYS" }, ":p": { S: "K" } },
    };
    expect(iamChecksOf(call("dynamodb", "Query", query), scope)[0].context).toEqual({
      "dynamodb:LeadingKeys": ["SIGNING_KEYS"],
    });
    const aliased = { ...query, KeyConditionExpression: "#k = :pk", ExpressionAttributeNames: { "#k": "PK" } };
    expect(iamChecksOf(call("dynamodb", "Query", aliased), scope)[0].context).toEqual({
      "dynamodb:LeadingKeys": ["SIGNING_KEYS"],
    });
    const index = {
      TableName: "t",
      IndexName: "GSI1",
      KeyConditionExpression: "GSI1PK = :pk",
      ExpressionAttributeValues: { ":pk": { S: "X" } },
    };
    expect(iamChecksOf(call("dynamodb", "Query", index), scope)).toEqual([
      { action: "dynamodb:Query", resource: `${TABLE}/index/GSI1`, context: {} },
    ]);
  });

  it("when a Query's partition cannot be read, LeadingKeys is left out rather than empty, which ForAllValues would pass", () => {
    const query = {
      TableName: "t",
      KeyConditionExpression: "SK = :s",
      ExpressionAttributeValues: { ":s": { S: "A" } },
    };
    expect(iamChecksOf(call("dynamodb", "Query", query), scope)[0].context).toEqual({});
  });

  it("when a transaction writes, each item is its own action on its table", () => {
    const items = [
      { Put: { TableName: "t", Item: { PK: { S: "A" } } } },
      { Update: { TableName: "t", Key: { PK: { S: "B" } } } },
      { ConditionCheck: { TableName: "t", Key: { PK: { S: "C" } } } },
      { Delete: { TableName: "t", Key: { PK: { S: "D" } } } },
    ];
    expect(
      iamChecksOf(call("dynamodb", "TransactWriteItems", { TransactItems: items }), scope).map((c) => c.action),
    ).toEqual(["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem"]);
  });

  it("when messages, events, secrets and hooks are called, each names the resource IAM authorizes", () => {
    expect(iamChecksOf(call("email", "SendEmail", { Source: "Svc <no-reply@example.com>" }), scope)[0].resource).toBe(
      "arn:aws:ses:eu-west-1:123456789012:identity/no-reply@example.com",
    );
    expect(iamChecksOf(call("sns", "Publish", { PhoneNumber: "+79991234567" }), scope)[0].resource).toBe("*");
    expect(
      iamChecksOf(call("events", "PutEvents", { Entries: [{ EventBusName: "bus" }, { EventBusName: "bus" }] }), scope),
    ).toEqual([
      { action: "events:PutEvents", resource: "arn:aws:events:eu-west-1:123456789012:event-bus/bus", context: {} },
    ]);
    const secret = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:key";
    expect(iamChecksOf(call("secretsmanager", "GetSecretValue", { SecretId: secret }), scope)[0]).toMatchObject({
      action: "secretsmanager:GetSecretValue",
      resource: secret,
    });
    const hook = "arn:aws:lambda:eu-west-1:123456789012:function:hook";
    expect(
      iamChecksOf(
        call("lambda", "POST", {}, `/2015-03-31/functions/${encodeURIComponent(hook)}/invocations`),
        scope,
      )[0],
    ).toMatchObject({ action: "lambda:InvokeFunction", resource: hook });
  });

  it("when a call is of a kind no rule knows, it is refused as unknown, never let through", () => {
    expect(() => iamChecksOf(call("dynamodb", "DeleteTable", { TableName: "t" }), scope)).toThrow(UnknownCallError);
    expect(() => iamChecksOf(call("s3", "GetObject", {}), scope)).toThrow(UnknownCallError);
  });
});

describe("a role's verdict (@cloud-copilot/iam-simulate)", () => {
  const role = rolePolicies("EventsRole", [
    {
      Version: "2012-10-17",
      Statement: [
        {
          Effect: "Allow",
          Action: "dynamodb:Query",
          Resource: TABLE,
          Condition: { "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": ["SIGNING_KEYS"] } },
        },
        { Effect: "Allow", Action: ["dynamodb:GetItem"], Resource: [TABLE, `${TABLE}/index/*`] },
      ],
    },
  ]);

  it("when a condition names the partition, only a call on that partition is allowed", async () => {
    const query = (partition: string) => ({
      action: "dynamodb:Query",
      resource: TABLE,
      context: { "dynamodb:LeadingKeys": [partition] },
    });
    expect((await role.check(query("SIGNING_KEYS"))).decision).toBe("Allowed");
    expect((await role.check(query("USER#1"))).decision).toBe("ImplicitlyDenied");
  });

  it("when an action is not granted, it is denied; the grants list each action and resource as written", async () => {
    expect((await role.check({ action: "dynamodb:PutItem", resource: TABLE, context: {} })).decision).toBe(
      "ImplicitlyDenied",
    );
    expect(role.grants()).toEqual([
      { action: "dynamodb:Query", resource: TABLE },
      { action: "dynamodb:GetItem", resource: TABLE },
      { action: "dynamodb:GetItem", resource: `${TABLE}/index/*` },
    ]);
  });
});
