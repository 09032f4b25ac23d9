import { readFileSync } from "node:fs";
import { App, type CfnElement, Stack } from "aws-cdk-lib";
import { Annotations, Match, Template } from "aws-cdk-lib/assertions";
import { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { Topic } from "aws-cdk-lib/aws-sns";
import { AwsSolutionsChecks } from "cdk-nag";
import type { IConstruct } from "constructs";
import { describe, expect, it } from "vitest";
import { FUNCTION_NEEDS, HOOK_CALLERS, MESSAGING_FUNCTIONS } from "../../infra/function-needs";
import { ALARM_THRESHOLDS, HOOK_FUNCTIONS, SIGN_IN_FUNCTIONS } from "../../infra/monitoring";
import { SvcIdentityStack, type SvcIdentityStackProps } from "../../infra/stack";
import { FUNCTION_NAMES, type FunctionName, routeKey } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import { TABLE } from "../../lib/store/table-definition";

const cdkJson = JSON.parse(readFileSync(new URL("../../cdk.json", import.meta.url), "utf8"));

function synthesize(props: SvcIdentityStackProps = {}) {
  const app = new App({
    // The feature flags `cdk synth` uses; no esbuild run per function (tests check the
    // template, `npm run build` and `cdk synth` check the bundles).
    context: { ...cdkJson.context, "aws:cdk:bundling-stacks": [] },
    // CloudFormation's own template checks (several seconds of WASM) run in `cdk synth`.
    builtinCloudFormationValidation: false,
  });
  const stack = new SvcIdentityStack(app, "SvcIdentity", { env: { region: "eu-west-1" }, ...props });
  return { app, stack, template: Template.fromStack(stack) };
}

const { app, stack, template } = synthesize();

type Resource<P = Record<string, unknown>> = { Properties: P };

function resources<P = Record<string, unknown>>(type: string, props: object = {}, from = template): Resource<P>[] {
  return Object.values(from.findResources(type, props)) as Resource<P>[];
}

function logicalId(construct: IConstruct): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

function integrationTarget(fn: FunctionName): unknown {
  const integrations = Object.keys(
    template.findResources("AWS::ApiGatewayV2::Integration", {
      Properties: { IntegrationUri: { "Fn::GetAtt": [logicalId(stack.functions[fn]), "Arn"] } },
    }),
  );
  expect(integrations, `integrations of ${fn}`).toHaveLength(1);
  return { "Fn::Join": ["", ["integrations/", { Ref: integrations[0] }]] };
}

function routesWithKey(key: string): Resource[] {
  return resources("AWS::ApiGatewayV2::Route", { Properties: { RouteKey: key } });
}

function actionsOf(fn: FunctionName): string[] {
  const role = logicalId(stack.functions[fn].role!);
  const policies = resources<{ PolicyDocument: { Statement: { Action: string | string[] }[] } }>("AWS::IAM::Policy", {
    Properties: { Roles: Match.arrayWith([{ Ref: role }]) },
  });
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement.flatMap((s) => s.Action));
}

describe("HTTP API routes", () => {
  it.each(routes.map((route) => [routeKey(route), route.fn] as const))(
    "when the table has %s, it has exactly one API route for it, to the %s function",
    (key, fn) => {
      const found = routesWithKey(key);
      expect(found).toHaveLength(1);
      expect(found[0].Properties.Target).toEqual(integrationTarget(fn));
    },
  );

  it("when a request matches no route, it goes to the meta function ($default)", () => {
    const found = routesWithKey("$default");
    expect(found).toHaveLength(1);
    expect(found[0].Properties.Target).toEqual(integrationTarget("meta"));
  });

  it("when routes are counted, it has none beyond the table and $default", () => {
    template.resourceCountIs("AWS::ApiGatewayV2::Route", routes.length + 1);
  });
});

describe("Lambda functions", () => {
  it("when counted, it has one per endpoint group and no CDK helper functions", () => {
    template.resourceCountIs("AWS::Lambda::Function", FUNCTION_NAMES.length);
  });

  it.each(FUNCTION_NAMES)(
    "when %s is configured, it runs nodejs22.x on arm64 with its settings and active tracing",
    (fn) => {
      template.hasResourceProperties("AWS::Lambda::Function", {
        Handler: "index.handler",
        Runtime: "nodejs22.x",
        Architectures: ["arm64"],
        // One whole vCPU (1,769 MB) where a route hashes a password or an answer.
        MemorySize: FUNCTION_NEEDS[fn].hashes ? 1769 : 1024,
        Timeout: 10,
        Role: { "Fn::GetAtt": [logicalId(stack.functions[fn].role!), "Arn"] },
        LoggingConfig: { LogGroup: Match.anyValue() },
        TracingConfig: { Mode: "Active" },
        Environment: {
          Variables: {
            TABLE_NAME: { Ref: logicalId(stack.table) },
            SVC_ISSUER: { "Fn::Join": ["", [{ "Fn::GetAtt": [logicalId(stack.api), "ApiEndpoint"] }, "/svc"]] },
            NODE_OPTIONS: Match.absent(),
            SVC_CONFIG_JSON: Match.absent(),
            // The code's own subsegments (lib/tracing.ts) are on unless the operator says no.
            POWERTOOLS_TRACE_ENABLED: Match.absent(),
          },
        },
      });
    },
  );

  it("when the operator gives settings and an issuer, it passes them to every function", () => {
    const settings = JSON.stringify({ codes: { length: 8 } });
    const other = synthesize({ issuer: "https://id.example.org", settingsJson: settings }).template;
    const variables = resources<{ Environment: { Variables: Record<string, unknown> } }>(
      "AWS::Lambda::Function",
      {},
      other,
    ).map((fn) => fn.Properties.Environment.Variables);
    expect(variables).toHaveLength(FUNCTION_NAMES.length);
    for (const v of variables) {
      expect(v.SVC_CONFIG_JSON).toBe(settings);
      expect(v.SVC_ISSUER).toBe("https://id.example.org");
    }
  });
});

describe("tracing", () => {
  it("when traceCalls is false, every function keeps active tracing and is told not to load the tracer", () => {
    const functions = resources<{
      TracingConfig: { Mode: string };
      Environment: { Variables: Record<string, unknown> };
    }>("AWS::Lambda::Function", {}, synthesize({ traceCalls: false }).template);
    expect(functions).toHaveLength(FUNCTION_NAMES.length);
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: "Active" });
      expect(fn.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe("false");
    }
  });
});

describe("scheduled jobs", () => {
  type RuleProps = { ScheduleExpression: string; Targets: { Arn: unknown; Input?: string }[] };
  const jobsArn = () => ({ "Fn::GetAtt": [logicalId(stack.functions.jobs), "Arn"] });

  it("when deployed with default settings, it rotates the signing keys every 30 days through the jobs function", () => {
    const rules = resources<RuleProps>("AWS::Events::Rule");
    expect(rules.map((r) => r.Properties.ScheduleExpression).sort()).toEqual(["cron(30 2 * * ? *)", "rate(30 days)"]);
    const rotation = rules.find((r) => r.Properties.ScheduleExpression === "rate(30 days)");
    expect(rotation?.Properties.Targets).toEqual([
      expect.objectContaining({ Arn: jobsArn(), Input: JSON.stringify({ job: "key-rotation" }) }),
    ]);
  });

  it("when tokens.keyRotationDays is set, it is the rotation period, and 0 turns the schedule off", () => {
    const expressions = (settings: object) =>
      resources<RuleProps>(
        "AWS::Events::Rule",
        {},
        synthesize({ settingsJson: JSON.stringify(settings) }).template,
      ).map((r) => r.Properties.ScheduleExpression);
    expect(expressions({ tokens: { keyRotationDays: 7 } })).toContain("rate(7 days)");
    expect(expressions({ tokens: { keyRotationDays: 0 } })).toEqual(["cron(30 2 * * ? *)"]);
  });
});

describe("DynamoDB table", () => {
  it("when its shape is read, it has the keys, GSI1, TTL and billing of lib/store/table-definition", () => {
    template.resourceCountIs("AWS::DynamoDB::GlobalTable", 1);
    template.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: "HASH" },
        { AttributeName: TABLE.sortKey, KeyType: "RANGE" },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: TABLE.gsi1.name,
          KeySchema: [
            { AttributeName: TABLE.gsi1.partitionKey, KeyType: "HASH" },
            { AttributeName: TABLE.gsi1.sortKey, KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        },
      ],
      TimeToLiveSpecification: { AttributeName: TABLE.ttlAttribute, Enabled: true },
    });
  });

  it("when the stack is deleted or the table replaced, it keeps the data (PITR, deletion protection, Retain)", () => {
    template.hasResource("AWS::DynamoDB::GlobalTable", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: {
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      },
    });
  });
});

describe("IAM grants", () => {
  const writes = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"];

  it.each(FUNCTION_NAMES)("when %s uses the table, it may write only if infra/function-needs says so", (fn) => {
    const actions = actionsOf(fn);
    if (FUNCTION_NEEDS[fn].table === "none") expect(actions.filter((a) => a.startsWith("dynamodb:"))).toEqual([]);
    else if (FUNCTION_NEEDS[fn].table === "stream") expect(actions).not.toContain("dynamodb:GetItem");
    else expect(actions).toContain("dynamodb:GetItem");
    if (FUNCTION_NEEDS[fn].table === "read-write") expect(actions).toEqual(expect.arrayContaining(writes));
    else
      for (const write of writes) {
        // Keeping identity events is a BatchWriteItem limited to their partitions (asserted with the stream's grants).
        if (write === "dynamodb:BatchWriteItem" && FUNCTION_NEEDS[fn].keepsIdentityEvents) continue;
        expect(actions).not.toContain(write);
      }
  });

  it("when meta (health, OpenAPI, $default) is granted, it cannot write to the table", () => {
    for (const write of writes) expect(actionsOf("meta")).not.toContain(write);
  });

  it.each(FUNCTION_NAMES)("when %s sends messages or not, it gets SNS and SES send rights accordingly", (fn) => {
    const actions = actionsOf(fn);
    const expected = MESSAGING_FUNCTIONS.has(fn);
    expect(actions.includes("sns:Publish")).toBe(expected);
    expect(actions.includes("ses:SendEmail")).toBe(expected);
    // The courier sends plain text only (lib/notify/ses-sender.ts).
    expect(actions).not.toContain("ses:SendRawEmail");
  });

  it.each(FUNCTION_NAMES)("when %s is granted the table, it gets only the item actions the store sends", (fn) => {
    for (const action of ["dynamodb:Scan", "dynamodb:DescribeTable", "secretsmanager:DescribeSecret"]) {
      expect(actionsOf(fn)).not.toContain(action);
    }
  });

  it("when roles are created, it attaches no managed policies (each writes only its own log group)", () => {
    for (const role of resources("AWS::IAM::Role")) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe("the event stream", () => {
  type Statement = { Action: string | string[]; Resource: unknown };
  const statementsOf = (fn: FunctionName) =>
    resources<{ PolicyDocument: { Statement: Statement[] } }>("AWS::IAM::Policy", {
      Properties: { Roles: Match.arrayWith([{ Ref: logicalId(stack.functions[fn].role!) }]) },
    }).flatMap((p) => p.Properties.PolicyDocument.Statement);
  const busArn = () => ({ "Fn::GetAtt": [logicalId(stack.eventBus as unknown as IConstruct), "Arn"] });

  it("when the table is created, it streams new and old images of every change", () => {
    template.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
      StreamSpecification: { StreamViewType: "NEW_AND_OLD_IMAGES" },
    });
  });

  it("when the stream has records, the events function alone reads it: batches, bisect, retries, failures to SQS", () => {
    const mappings = resources("AWS::Lambda::EventSourceMapping");
    expect(mappings).toHaveLength(1);
    expect(mappings[0].Properties).toMatchObject({
      FunctionName: { Ref: logicalId(stack.functions.events) },
      EventSourceArn: { "Fn::GetAtt": [logicalId(stack.table), "StreamArn"] },
      StartingPosition: "TRIM_HORIZON",
      BatchSize: 100,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86400,
      DestinationConfig: {
        OnFailure: { Destination: { "Fn::GetAtt": [logicalId(stack.eventFailures), "Arn"] } },
      },
    });
    // Lambda's filter drops the identity events the function keeps, written or expired; every other change passes.
    expect(mappings[0].Properties.FilterCriteria).toEqual({
      Filters: [
        {
          Pattern: JSON.stringify({
            eventName: ["INSERT", "MODIFY"],
            dynamodb: { NewImage: { entity: { S: [{ "anything-but": ["identity-event"] }] } } },
          }),
        },
        {
          Pattern: JSON.stringify({
            eventName: ["REMOVE"],
            dynamodb: { OldImage: { entity: { S: [{ "anything-but": ["identity-event"] }] } } },
          }),
        },
      ],
    });
  });

  it("when the failure queue is created, it keeps messages 14 days and refuses plain HTTP", () => {
    template.resourceCountIs("AWS::SQS::Queue", 1);
    template.hasResourceProperties("AWS::SQS::Queue", { MessageRetentionPeriod: 14 * 86400 });
    const policy = resources<{ PolicyDocument: { Statement: (Statement & { Effect: string; Condition: unknown })[] } }>(
      "AWS::SQS::QueuePolicy",
    );
    expect(policy[0].Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
    );
  });

  it("when no bus is given, the stack creates one and the events function is told its ARN", () => {
    template.resourceCountIs("AWS::Events::EventBus", 1);
    template.hasResourceProperties("AWS::Lambda::Function", {
      Role: { "Fn::GetAtt": [logicalId(stack.functions.events.role!), "Arn"] },
      Environment: { Variables: Match.objectLike({ EVENT_BUS_NAME: busArn() }) },
    });
  });

  it("when the events function publishes, it may call events:PutEvents on that bus only, and no other function may", () => {
    const puts = statementsOf("events").filter((s) => [s.Action].flat().includes("events:PutEvents"));
    expect(puts).toEqual([expect.objectContaining({ Action: "events:PutEvents", Resource: busArn() })]);
    for (const fn of FUNCTION_NAMES.filter((name) => name !== "events")) {
      expect(actionsOf(fn)).not.toContain("events:PutEvents");
    }
  });

  it("when the events function reads the stream, it gets stream reads and, of the items, only a Query of the signing keys and writes of the kept identity events", () => {
    const actions = actionsOf("events");
    expect(actions).toEqual(expect.arrayContaining(["dynamodb:GetRecords", "dynamodb:GetShardIterator"]));
    for (const action of actions) {
      expect(action).not.toMatch(/^dynamodb:(GetItem|PutItem|UpdateItem|DeleteItem|BatchGetItem|Scan)$/);
    }
    // It keeps what it published for the console: BatchWriteItem on those partitions alone.
    const writes = statementsOf("events").filter((s) => [s.Action].flat().includes("dynamodb:BatchWriteItem"));
    expect(writes).toEqual([
      expect.objectContaining({
        Action: "dynamodb:BatchWriteItem",
        Resource: { "Fn::GetAtt": [logicalId(stack.table), "Arn"] },
        Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["IDEVENTS#*"] } },
      }),
    ]);
    expect(actions).toContain("sqs:SendMessage");
    // Back-Channel Logout signs logout tokens: the signing keys' partition, nothing else.
    const queries = statementsOf("events").filter((s) => [s.Action].flat().includes("dynamodb:Query"));
    expect(queries).toEqual([
      expect.objectContaining({
        Action: "dynamodb:Query",
        Resource: { "Fn::GetAtt": [logicalId(stack.table), "Arn"] },
        Condition: { "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": ["SIGNING_KEYS"] } },
      }),
    ]);
  });

  it("when a bus ARN is given, the stack creates no bus and grants PutEvents on the given one", () => {
    const arn = "arn:aws:events:eu-west-1:123456789012:event-bus/identity";
    const given = synthesize({ eventBusArn: arn }).template;
    given.resourceCountIs("AWS::Events::EventBus", 0);
    const statements = resources<{ PolicyDocument: { Statement: Statement[] } }>("AWS::IAM::Policy", {}, given)
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((s) => [s.Action].flat().includes("events:PutEvents"));
    expect(statements).toEqual([expect.objectContaining({ Resource: arn })]);
  });
});

describe("the data key secret", () => {
  const secretRef = () => ({ Ref: logicalId(stack.dataKey) });

  it("when created, it is a generated secret that outlives the stack, like the table", () => {
    template.resourceCountIs("AWS::SecretsManager::Secret", 1);
    template.hasResource("AWS::SecretsManager::Secret", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: { GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false } },
    });
  });

  it.each(FUNCTION_NAMES)(
    "when %s needs the data key or not, it gets the secret's ARN and read right accordingly",
    (fn) => {
      const needed = FUNCTION_NEEDS[fn].dataKey === true;
      const variables = resources<{ Environment: { Variables: Record<string, unknown> } }>("AWS::Lambda::Function", {
        Properties: { Role: { "Fn::GetAtt": [logicalId(stack.functions[fn].role!), "Arn"] } },
      })[0].Properties.Environment.Variables;
      expect(variables.SVC_DATA_KEY_SECRET_ID).toEqual(needed ? secretRef() : undefined);
      expect(actionsOf(fn).includes("secretsmanager:GetSecretValue")).toBe(needed);
    },
  );

  it("when federation reads it, the grant names this one secret only", () => {
    const role = logicalId(stack.functions.federation.role!);
    const statements = resources<{ PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } }>(
      "AWS::IAM::Policy",
      { Properties: { Roles: Match.arrayWith([{ Ref: role }]) } },
    ).flatMap((p) => p.Properties.PolicyDocument.Statement);
    const read = statements.filter((s) => [s.Action].flat().includes("secretsmanager:GetSecretValue"));
    expect(read).toHaveLength(1);
    expect(read[0].Resource).toEqual(secretRef());
  });
});

describe("API stage and outputs", () => {
  it("when requests arrive, it throttles them and writes JSON access logs", () => {
    template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      StageName: "$default",
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
    const [stage] = resources<{ AccessLogSettings: { Format: string } }>("AWS::ApiGatewayV2::Stage");
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({
      requestId: "$context.requestId",
      ip: "$context.identity.sourceIp",
      routeKey: "$context.routeKey",
      status: "$context.status",
    });
  });

  it("when deployed, it outputs the API URL and the table name", () => {
    template.hasOutput("ApiUrl", {});
    template.hasOutput("TableName", { Value: { Ref: logicalId(stack.table) } });
  });
});

describe("alarms and dashboard", () => {
  type AlarmProps = {
    AlarmName: string;
    Threshold: number;
    Statistic?: string;
    MetricName?: string;
    Namespace?: string;
    Dimensions?: { Name: string; Value: unknown }[];
    Metrics?: {
      Id: string;
      Expression?: string;
      MetricStat?: {
        Metric: { MetricName: string; Namespace: string; Dimensions: { Name: string; Value: unknown }[] };
      };
    }[];
    AlarmActions?: unknown[];
    OKActions?: unknown[];
  };
  const alarms = (from = template) =>
    resources<AlarmProps>("AWS::CloudWatch::Alarm", {}, from).map((a) => a.Properties);
  const alarmNamed = (name: string) => {
    const found = alarms().filter((a) => a.AlarmName === `svc-identity-${name}`);
    expect(found, name).toHaveLength(1);
    return found[0];
  };
  const statMetrics = (alarm: AlarmProps) =>
    (alarm.Metrics ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));

  // The API's 5xx rate, two per function, the table's two, sign-in failures, message and hook failures, concurrency.
  const ALARM_COUNT = 1 + 2 * FUNCTION_NAMES.length + 2 + 1 + 2 + 1;

  it("when counted, there is one per function for errors and for throttles, and the API, table, sign-in, message, hook and concurrency ones", () => {
    template.resourceCountIs("AWS::CloudWatch::Alarm", ALARM_COUNT);
  });

  it.each(FUNCTION_NAMES)("when %s fails or is throttled even once in 5 minutes, an alarm fires", (fn) => {
    const functionDimension = [{ Name: "FunctionName", Value: { Ref: logicalId(stack.functions[fn]) } }];
    expect(alarmNamed(`${fn}-Errors`)).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "Errors",
      Dimensions: functionDimension,
      Threshold: ALARM_THRESHOLDS.lambdaErrors,
    });
    expect(alarmNamed(`${fn}-Throttles`)).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "Throttles",
      Dimensions: functionDimension,
      Threshold: ALARM_THRESHOLDS.lambdaThrottles,
    });
  });

  it("when the API answers 5xx to 5% of at least 20 requests in 5 minutes, an alarm fires", () => {
    const alarm = alarmNamed("Api5xxRate");
    expect(alarm.Threshold).toBe(5);
    expect(statMetrics(alarm).map((m) => [m.Namespace, m.MetricName])).toEqual([
      ["AWS/ApiGateway", "Count"],
      ["AWS/ApiGateway", "5xx"],
    ]);
    expect(alarm.Metrics?.find((m) => m.Expression)?.Expression).toBe("IF(requests >= 20, 100 * errors / requests, 0)");
  });

  it("when DynamoDB has system errors or throttles requests to the table, an alarm fires", () => {
    for (const [name, metric] of [
      ["TableSystemErrors", "SystemErrors"],
      ["TableThrottledRequests", "ThrottledRequests"],
    ]) {
      const alarm = alarmNamed(name);
      expect(alarm.Threshold).toBe(1);
      const metrics = statMetrics(alarm);
      expect(metrics.length).toBeGreaterThan(0);
      expect(metrics.length).toBeLessThanOrEqual(10);
      for (const m of metrics) {
        expect(m).toMatchObject({ Namespace: "AWS/DynamoDB", MetricName: metric });
        expect(m.Dimensions).toContainEqual({ Name: "TableName", Value: { Ref: logicalId(stack.table) } });
      }
    }
  });

  it("when failed sign-ins reach the threshold in 5 minutes across the functions that sign in, an alarm fires", () => {
    const alarm = alarmNamed("SignInFailureSpike");
    expect(alarm.Threshold).toBe(ALARM_THRESHOLDS.signInFailures);
    expect(statMetrics(alarm)).toEqual(
      SIGN_IN_FUNCTIONS.map((fn) => ({
        Namespace: "SvcIdentity",
        MetricName: "SignInFailed",
        // CloudFormation matches dimensions as a set; CDK writes them sorted by name.
        Dimensions: [
          { Name: "function", Value: fn },
          { Name: "service", Value: "svc-identity" },
        ],
      })),
    );
  });

  /** The count's metrics in an alarm summing it over functions, each filed by function alone. */
  const countedBy = (name: string, functions: readonly string[]) =>
    functions.map((fn) => ({
      Namespace: "SvcIdentity",
      MetricName: name,
      Dimensions: [
        { Name: "function", Value: fn },
        { Name: "service", Value: "svc-identity" },
      ],
    }));

  // The functions that send messages (groups: an organization's invitation).
  const SENDERS = ["account", "groups", "hosted", "passwords", "registration", "token", "users"];

  it("when SNS or SES refuse messages in 5 minutes, summed over every function that sends them, an alarm fires", () => {
    const alarm = alarmNamed("MessageSendFailures");
    expect(alarm.Threshold).toBe(ALARM_THRESHOLDS.messageSendFailures);
    expect([...MESSAGING_FUNCTIONS].sort()).toEqual(SENDERS);
    expect(statMetrics(alarm)).toEqual(countedBy("MessageSendFailed", [...MESSAGING_FUNCTIONS]));
    expect(alarm.Metrics?.find((m) => m.Expression)?.Expression).toBe("f0 + f1 + f2 + f3 + f4 + f5 + f6");
  });

  it("when any hook fails once, summed over every function that asks hooks, an alarm fires", () => {
    const alarm = alarmNamed("HookFailures");
    expect(alarm.Threshold).toBe(1);
    // Every sender asks the customMessage hook first.
    expect([...HOOK_FUNCTIONS].sort()).toEqual(SENDERS);
    expect(statMetrics(alarm)).toEqual(countedBy("HookFailed", HOOK_FUNCTIONS));
  });

  it("when the account's claimed Lambda concurrency reaches 80% of its quota, an alarm fires (1,000 unless told)", () => {
    expect(alarmNamed("LambdaConcurrency")).toMatchObject({
      Namespace: "AWS/Lambda",
      MetricName: "ClaimedAccountConcurrency",
      Statistic: "Maximum",
      Threshold: 800,
    });
    const raised = synthesize({ accountConcurrency: 5000 });
    const alarm = alarms(raised.template).find((a) => a.AlarmName === "svc-identity-LambdaConcurrency");
    expect(alarm?.Threshold).toBe(4000);
  });

  it("when no topic is given, the alarms exist without actions", () => {
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toBeUndefined();
      expect(alarm.OKActions).toBeUndefined();
    }
  });

  it("when a topic is given, every alarm notifies it on alarm and on recovery, and cdk-nag stays clean", () => {
    const topicArn = "arn:aws:sns:eu-west-1:123456789012:svc-identity-alarms";
    const alarmTopic = Topic.fromTopicArn(new Stack(), "Ops", topicArn);
    const withTopic = synthesize({ alarmTopic });
    const all = alarms(withTopic.template);
    expect(all).toHaveLength(ALARM_COUNT);
    for (const alarm of all) {
      expect(alarm.AlarmActions).toEqual([topicArn]);
      expect(alarm.OKActions).toEqual([topicArn]);
    }
    expect(new AwsSolutionsChecks().validateScope(withTopic.app).violations).toEqual([]);
  });

  it("when the topic is given as an ARN (SVC_ALARM_TOPIC_ARN in cdk deploy), every alarm notifies it", () => {
    const topicArn = "arn:aws:sns:eu-west-1:123456789012:ops-pager";
    const all = alarms(synthesize({ alarmTopicArn: topicArn }).template);
    expect(all).toHaveLength(ALARM_COUNT);
    for (const alarm of all) {
      expect(alarm.AlarmActions).toEqual([topicArn]);
      expect(alarm.OKActions).toEqual([topicArn]);
    }
  });

  it("when deployed, one dashboard shows the API, sign-ins, functions, table and alarm states", () => {
    const [dashboard] = resources<{ DashboardName: string; DashboardBody: unknown }>("AWS::CloudWatch::Dashboard");
    template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    expect(dashboard.Properties.DashboardName).toBe("svc-identity");
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const title of [
      "API requests and 5xx",
      "Sign-ins and tokens",
      "Lambda errors",
      "Lambda throttles",
      "Registrations",
      "Messages sent and failed",
      "Hook failures",
      "Lambda concurrency (max)",
      "Alarms",
    ])
      expect(body).toContain(title);
    expect(body).toContain('"SvcIdentity\\",\\"SignInFailed\\"');
    for (const [count, dims] of [
      ["SignIn", "method,result"],
      ["Registration", "result"],
      ["MessageSent", "channel,message"],
      ["MessageSendFailed", "channel,message"],
      ["HookFailed", "hook,why"],
    ])
      expect(body).toMatch(new RegExp(`\\{SvcIdentity,service,function,${dims}\\} MetricName=\\W+${count}\\W`));
  });
});

describe("cdk-nag AwsSolutions", () => {
  it("when every rule has run, it reports no unacknowledged finding", () => {
    const report = new AwsSolutionsChecks().validateScope(app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath)}`);
    expect(findings).toEqual([]);
  });

  // cdk-nag 3 reports through the validation plugin above, not annotations; this catches
  // the warnings CDK itself attaches (deprecated props, unsupported settings) instead.
  it("when synthesized, it carries no error or warning annotation", () => {
    const annotations = Annotations.fromStack(stack);
    expect(annotations.findError("*", Match.anyValue())).toEqual([]);
    expect(annotations.findWarning("*", Match.anyValue())).toEqual([]);
  });
});

describe("CORS on the HTTP API", () => {
  it("when no origin is configured, the HTTP API has no CORS configuration", () => {
    template.hasResourceProperties("AWS::ApiGatewayV2::Api", { CorsConfiguration: Match.absent() });
  });

  it("when origins are configured, the HTTP API answers preflights for exactly them, without credentials", () => {
    const settingsJson = JSON.stringify({
      cors: { allowedOrigins: ["https://app.example.org", "http://localhost:5173"] },
    });
    const { app: corsApp, template: cors } = synthesize({ settingsJson });
    cors.hasResourceProperties("AWS::ApiGatewayV2::Api", {
      CorsConfiguration: {
        AllowOrigins: ["https://app.example.org", "http://localhost:5173"],
        AllowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
        AllowHeaders: ["authorization", "content-type", "svc-ci-ua-id", "dpop"],
        ExposeHeaders: ["www-authenticate", "x-request-id", "retry-after", "link", "dpop-nonce"],
        MaxAge: 3600,
        AllowCredentials: false,
      },
    });
    expect(new AwsSolutionsChecks().validateScope(corsApp).violations).toEqual([]);
  });

  it('when "*" is configured, the HTTP API allows any origin and never credentials', () => {
    const { template: cors } = synthesize({ settingsJson: JSON.stringify({ cors: { allowedOrigins: ["*"] } }) });
    cors.hasResourceProperties("AWS::ApiGatewayV2::Api", {
      CorsConfiguration: { AllowOrigins: ["*"], AllowCredentials: false },
    });
  });

  it("when every route's method is listed, the preflight allows each of them", () => {
    const { template: cors } = synthesize({
      settingsJson: JSON.stringify({ cors: { allowedOrigins: ["https://app.example.org"] } }),
    });
    const api = resources<{ CorsConfiguration: { AllowMethods: string[] } }>("AWS::ApiGatewayV2::Api", {}, cors);
    for (const route of routes) expect(api[0].Properties.CorsConfiguration.AllowMethods).toContain(route.method);
  });
});

describe("extension hooks", () => {
  const hookStack = new Stack(new App(), "Hooks", { env: { region: "eu-west-1" } });
  const arnOf = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${name}`;
  const given = {
    preSignIn: {
      function: LambdaFunction.fromFunctionArn(hookStack, "PreSignIn", arnOf("pre-sign-in")),
      timeoutMs: 800,
    },
    customMessage: { function: LambdaFunction.fromFunctionArn(hookStack, "CustomMessage", arnOf("custom-message")) },
  };
  const hooked = synthesize({ settingsJson: JSON.stringify({ codes: { length: 8 } }), hooks: given });

  /** The resources each function's role may invoke Lambda functions on. */
  function invokableBy(fn: FunctionName): unknown[] {
    const role = hooked.stack.getLogicalId(hooked.stack.functions[fn].role?.node.defaultChild as CfnElement);
    const policies = resources<{ PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } }>(
      "AWS::IAM::Policy",
      { Properties: { Roles: Match.arrayWith([{ Ref: role }]) } },
      hooked.template,
    );
    return policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement)
      .filter((s) => [s.Action].flat().some((a) => a.startsWith("lambda:")))
      .flatMap((s) => {
        expect([s.Action].flat()).toEqual(["lambda:InvokeFunction"]);
        return [s.Resource].flat();
      });
  }

  it("when hooks are given, exactly their callers may invoke exactly their functions", () => {
    for (const fn of FUNCTION_NAMES) {
      const expected = [
        ...(HOOK_CALLERS.preSignIn.includes(fn) ? [arnOf("pre-sign-in")] : []),
        ...(HOOK_CALLERS.customMessage.includes(fn) ? [arnOf("custom-message")] : []),
      ];
      expect(invokableBy(fn).sort(), fn).toEqual(expected.sort());
    }
    expect(invokableBy("token")).toContain(arnOf("pre-sign-in"));
    expect(invokableBy("meta")).toEqual([]);
    expect(invokableBy("users")).toEqual([arnOf("custom-message")]);
  });

  it("when hooks are given, every function's settings name them as Lambda targets beside the operator's own", () => {
    const variables = resources<{ Environment: { Variables: Record<string, unknown> } }>(
      "AWS::Lambda::Function",
      {},
      hooked.template,
    ).map((fn) => JSON.parse(String(fn.Properties.Environment.Variables.SVC_CONFIG_JSON)));
    expect(variables).toHaveLength(FUNCTION_NAMES.length);
    for (const settings of variables) {
      expect(settings).toEqual({
        codes: { length: 8 },
        hooks: {
          preSignIn: { target: `lambda:${arnOf("pre-sign-in")}`, timeoutMs: 800 },
          customMessage: { target: `lambda:${arnOf("custom-message")}` },
        },
      });
    }
  });

  it("when hooks are granted, cdk-nag finds nothing new (no wildcard on the invoke grants)", () => {
    const report = new AwsSolutionsChecks().validateScope(hooked.app);
    const findings = report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath)}`);
    expect(findings).toEqual([]);
  });
});
