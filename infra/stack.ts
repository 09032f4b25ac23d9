import {
  Aws,
  type CfnElement,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import {
  CorsHttpMethod,
  type CorsPreflightOptions,
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { AttributeType, Billing, ProjectionType, StreamViewType, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { EventBus, type IEventBus, Rule, RuleTargetInput, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import {
  Architecture,
  FilterCriteria,
  type IFunction,
  Function as LambdaFunctionResource,
  Runtime,
  StartingPosition,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Secret } from "aws-cdk-lib/aws-secretsmanager";
import { type ITopic, Topic } from "aws-cdk-lib/aws-sns";
import { Queue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { parseSettings } from "../lib/config/validation";
import type { HookName } from "../lib/domain/hooks/contracts";
import { STREAM_FILTER_PATTERNS } from "../lib/events/stream-filter";
import {
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
  type CorsSettings,
} from "../lib/http/cors";
import { FUNCTION_NAMES, type FunctionName } from "../lib/http/route";
import { routes } from "../lib/routes";
import { keys } from "../lib/store/keys";
import { TABLE } from "../lib/store/table-definition";
import { functionCode } from "./bundling";
import { FUNCTION_NEEDS, HOOK_CALLERS, memoryMbOf } from "./function-needs";
import { Monitoring } from "./monitoring";
import { THROTTLE } from "./sizing";

export interface SvcIdentityStackProps extends StackProps {
  /** The `iss` of issued tokens; defaults to the API's URL. */
  issuer?: string;
  /** The operator's settings (SVC_CONFIG), already validated, as JSON. */
  settingsJson?: string;
  /** Sender address of e-mails (SES-verified identity). */
  mailFrom?: string;
  /** An existing event bus for the event stream (docs/events.md); unset: the stack creates one. */
  eventBusArn?: string;
  /**
   * Extension hooks as Lambda functions (docs/hooks.md): each is written into the settings as the
   * hook's target, and only the functions that call it may invoke it.
   */
  hooks?: Partial<Record<HookName, { function: IFunction; timeoutMs?: number }>>;
  /**
   * Where the alarms notify (docs/operations.md). Unset: the alarms exist without actions, so an
   * operator's own topic (with its subscriptions and encryption) is never duplicated by ours.
   */
  alarmTopic?: ITopic;
  /** The same as an ARN (what `cdk deploy` passes from SVC_ALARM_TOPIC_ARN); alarmTopic wins. */
  alarmTopicArn?: string;
  /** The account's Lambda concurrency quota in this region, if raised from 1,000: the concurrency alarm is at 80% of it. */
  accountConcurrency?: number;
  /**
   * X-Ray subsegments for AWS SDK and hook calls (docs/operations.md, Tracing); default true.
   * False keeps Lambda's own segments and saves the tracer's cold-start cost.
   */
  traceCalls?: boolean;
}

const LOG_RETENTION = RetentionDays.THREE_MONTHS;
// Pseudo parameters rather than the stack's env, so the cdk-nag finding for it reads the
// same in every environment.
const SES_IDENTITIES = `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:identity/*`;
const SES_IDENTITIES_FINDING = "Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*";

/**
 * The item actions the store sends (lib/store) from a function, rather than CDK's
 * grantReadWriteData: no Scan (svc-admin's alone, under the operator's credentials), no
 * DescribeTable and no stream reads on the table's ARN, which no function's code makes
 * (the least-privilege report of test/infra/cloud-assembly.test.ts, docs/deployment.md).
 */
const ITEM_READS = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"];
const ITEM_WRITES = [
  "dynamodb:PutItem",
  "dynamodb:UpdateItem",
  "dynamodb:DeleteItem",
  "dynamodb:BatchWriteItem",
  "dynamodb:ConditionCheckItem",
];

/** The function that answers API Gateway's `$default` route (unmatched requests). */
const FALLBACK_FUNCTION: FunctionName = "meta";

/** docs/deployment.md: the HTTP API, one function per endpoint group, the table; all from lib/. */
export class SvcIdentityStack extends Stack {
  readonly api: HttpApi;
  readonly table: TableV2;
  /** The data key (lib/crypto/data-key.ts): never in the table, read only by functions that need it. */
  readonly dataKey: Secret;
  readonly functions: Record<FunctionName, LambdaFunctionResource>;
  /** Where the events function publishes identity events (docs/events.md). */
  readonly eventBus: IEventBus;
  /** Stream batches the events function gave up on (their shard and sequence range), for replay. */
  readonly eventFailures: Queue;
  /** The alarms and the dashboard. */
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: SvcIdentityStackProps = {}) {
    super(scope, id, props);

    this.table = new TableV2(this, "Table", {
      dynamoStream: StreamViewType[TABLE.streamView],
      partitionKey: { name: TABLE.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      timeToLiveAttribute: TABLE.ttlAttribute,
      globalSecondaryIndexes: [
        {
          indexName: TABLE.gsi1.name,
          partitionKey: { name: TABLE.gsi1.partitionKey, type: AttributeType.STRING },
          sortKey: { name: TABLE.gsi1.sortKey, type: AttributeType.STRING },
          projectionType: ProjectionType.ALL,
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const settingsJson = withHookTargets(props.settingsJson, props.hooks);
    this.api = new HttpApi(this, "Api", {
      apiName: "svc-identity",
      createDefaultStage: false,
      corsPreflight: corsPreflight(parseSettings(JSON.parse(settingsJson ?? "{}")).cors),
    });
    const stage = new HttpStage(this, "DefaultStage", {
      httpApi: this.api,
      stageName: "$default",
      autoDeploy: true,
      throttle: THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(new LogGroup(this, "ApiAccessLogs", { retention: LOG_RETENTION })),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            ip: "$context.identity.sourceIp",
            userAgent: "$context.identity.userAgent",
            requestTime: "$context.requestTimeEpoch",
            method: "$context.httpMethod",
            path: "$context.path",
            routeKey: "$context.routeKey",
            status: "$context.status",
            responseLength: "$context.responseLength",
            latencyMs: "$context.responseLatency",
            integrationLatencyMs: "$context.integrationLatency",
            integrationError: "$context.integrationErrorMessage",
          }),
        ),
      },
    });

    this.dataKey = new Secret(this, "DataKey", {
      description:
        "svc-identity data key: encrypts stored external tokens and signs bind states (subkeys by HKDF-SHA256). Replacing it makes stored external tokens unreadable.",
      // 64 letters and digits: about 380 bits for HKDF to derive from.
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      // Losing it loses every stored external token: it outlives the stack, like the table.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.dataKey).acknowledge({
      id: "AwsSolutions-SMG4",
      reason:
        "A data key, not a credential: rotating it needs re-encryption of the stored external tokens, which the sealed format (v1 prefix) leaves room for but which does not exist yet. The secret is readable only by the functions whose needs say dataKey.",
    });

    this.eventBus = props.eventBusArn
      ? EventBus.fromEventBusArn(this, "EventBus", props.eventBusArn)
      : new EventBus(this, "EventBus", { description: "svc-identity: identity changes and security events" });
    this.eventFailures = new Queue(this, "EventFailures", {
      enforceSSL: true,
      // The longest SQS keeps a message: time to find why a batch failed and replay it.
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.eventFailures).acknowledge({
      id: "AwsSolutions-SQS3",
      reason:
        "This queue is itself the on-failure destination of the event stream; what lands here is read by an operator, not a consumer that could fail again.",
    });

    // The issuer names the /svc prefix, so discovery sits at <issuer>/.well-known/openid-configuration.
    const issuer = props.issuer ?? `${this.api.apiEndpoint}/svc`;
    this.functions = Object.fromEntries(
      FUNCTION_NAMES.map((name) => [name, this.endpointGroup(name, issuer, settingsJson, props)]),
    ) as Record<FunctionName, LambdaFunctionResource>;
    this.allowHooks(props.hooks ?? {});

    // Staged signing-key rotation (lib/tokens/rotation.ts) every tokens.keyRotationDays.
    const settings = parseSettings(settingsJson === undefined ? {} : JSON.parse(settingsJson));
    if (settings.tokens.keyRotationDays > 0) {
      new Rule(this, "KeyRotationSchedule", {
        schedule: Schedule.rate(Duration.days(settings.tokens.keyRotationDays)),
        targets: [
          new LambdaFunction(this.functions.jobs, { event: RuleTargetInput.fromObject({ job: "key-rotation" }) }),
        ],
      });
    }

    // One integration per function, shared by all of its routes. One invoke permission
    // per function (not per route): a route reaches a function only through that
    // function's integration anyway, and per-route permissions would eat the 500
    // resources a template may hold.
    const integrations = new Map<FunctionName, HttpLambdaIntegration>();
    const integrationOf = (name: FunctionName) => {
      let integration = integrations.get(name);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${pascal(name)}Integration`, this.functions[name], {
          scopePermissionToRoute: false,
        });
        integrations.set(name, integration);
      }
      return integration;
    };
    for (const route of routes) {
      new HttpRoute(this.api, route.id, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: integrationOf(route.fn),
      });
    }
    new HttpRoute(this.api, "$default", {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: integrationOf(FALLBACK_FUNCTION),
    });

    Validations.of(this.api).acknowledge({
      id: "AwsSolutions-APIG4",
      reason:
        "Authorization is per route in the functions (docs/architecture.md): bearer JWTs with interface §5.3 permissions, HTTP Basic for v1/v2 and OAuth client authentication at the token endpoint, which no API Gateway authorizer expresses; JWKS, health and OpenAPI are public by contract.",
    });

    this.monitoring = new Monitoring(this, "Monitoring", {
      api: this.api,
      table: this.table,
      functions: this.functions,
      alarmTopic:
        props.alarmTopic ??
        (props.alarmTopicArn ? Topic.fromTopicArn(this, "AlarmTopic", props.alarmTopicArn) : undefined),
      accountConcurrency: props.accountConcurrency,
    });

    new CfnOutput(this, "ApiUrl", { value: stage.url });
    new CfnOutput(this, "TableName", { value: this.table.tableName });
  }

  private endpointGroup(
    name: FunctionName,
    issuer: string,
    settingsJson: string | undefined,
    { mailFrom, traceCalls = true }: Pick<SvcIdentityStackProps, "mailFrom" | "traceCalls">,
  ): LambdaFunctionResource {
    const id = `${pascal(name)}Function`;
    const needs = FUNCTION_NEEDS[name];
    // An explicit role and log group instead of AWSLambdaBasicExecutionRole: it may write
    // to its own log group only.
    const logGroup = new LogGroup(this, `${id}Logs`, { retention: LOG_RETENTION });
    const role = new Role(this, `${id}Role`, { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
    logGroup.grantWrite(role);

    const fn = new LambdaFunctionResource(this, id, {
      code: functionCode(name),
      handler: "index.handler",
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: memoryMbOf(name),
      timeout: Duration.seconds(10),
      role,
      logGroup,
      // Lambda's own X-Ray segments (init, invocation); the code adds its calls' (lib/tracing.ts).
      tracing: Tracing.ACTIVE,
      // No NODE_OPTIONS=--enable-source-maps: it parses the bundle's map at every cold start
      // (25 ms); a logged error's stack is mapped when it is logged (lib/http/original-stack.ts).
      environment: {
        TABLE_NAME: this.table.tableName,
        SVC_ISSUER: issuer,
        ...(settingsJson === undefined ? {} : { SVC_CONFIG_JSON: settingsJson }),
        ...(needs.messaging && mailFrom ? { SVC_MAIL_FROM: mailFrom } : {}),
        ...(needs.dataKey && { SVC_DATA_KEY_SECRET_ID: this.dataKey.secretArn }),
        ...(needs.publishes && { EVENT_BUS_NAME: this.eventBus.eventBusArn }),
        // The tracer is then never loaded: its cold-start cost saved, Lambda's own segments kept.
        ...(!traceCalls && { POWERTOOLS_TRACE_ENABLED: "false" }),
      },
    });
    Validations.of(role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "Active tracing adds xray:PutTraceSegments and xray:PutTelemetryRecords, which have no resource-level permissions.",
    });
    Validations.of(fn).acknowledge({
      id: "AwsSolutions-L1",
      reason: "The service targets nodejs22.x (docs/deployment.md); moving to a newer runtime is a design change.",
    });

    if (needs.table === "stream") this.consumeStream(fn, role);
    else if (needs.table !== "none") {
      this.table.grant(role, ...(needs.table === "read-write" ? [...ITEM_READS, ...ITEM_WRITES] : ITEM_READS));
      this.acknowledgeIndexWildcard(role);
    }
    if (needs.publishes) this.eventBus.grantPutEventsTo(role);
    if (needs.signsLogoutTokens) this.allowSigningKeysRead(role);
    if (needs.keepsIdentityEvents) this.allowIdentityEventWrites(role);
    if (needs.messaging) this.allowMessaging(role);
    // GetSecretValue alone: grantRead adds DescribeSecret, which the code never calls.
    if (needs.dataKey)
      role.addToPolicy(
        new PolicyStatement({ actions: ["secretsmanager:GetSecretValue"], resources: [this.dataKey.secretArn] }),
      );
    if (needs.schedule) {
      new Rule(this, `${id}Schedule`, {
        schedule: Schedule.expression(needs.schedule),
        targets: [new LambdaFunction(fn)],
      });
    }
    return fn;
  }

  /**
   * The table's stream feeds the function in batches. A throw halves the batch until the bad
   * record stands alone (bisect); an event the bus keeps refusing reports its record, and the
   * stream resumes there (docs/events.md). After the retries the batch's position goes to the
   * failure queue and the stream moves on.
   */
  private consumeStream(fn: LambdaFunctionResource, role: Role): void {
    fn.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 10,
        // The stream keeps records 24 hours; past that a retry would find them gone.
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(this.eventFailures),
        // Every change but the identity events the function keeps itself (lib/events/stream-filter.ts).
        filters: STREAM_FILTER_PATTERNS.map((pattern) => FilterCriteria.filter(pattern)),
      }),
    );
    Validations.of(role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason: "dynamodb:ListStreams, which reading a table's stream needs, has no resource-level permissions.",
    });
  }

  /** dynamodb:BatchWriteItem on the table, for the kept identity events' partitions only (dynamodb:LeadingKeys). */
  private allowIdentityEventWrites(role: Role): void {
    role.addToPolicy(
      new PolicyStatement({
        actions: ["dynamodb:BatchWriteItem"],
        resources: [this.table.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${keys.identityEventPrefix}*`] } },
      }),
    );
  }

  /** dynamodb:Query on the table, for the signing keys' partition only (dynamodb:LeadingKeys). */
  private allowSigningKeysRead(role: Role): void {
    role.addToPolicy(
      new PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: [this.table.tableArn],
        conditions: { "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": [keys.signingKeysPartition] } },
      }),
    );
  }

  /** lambda:InvokeFunction on exactly each hook's function, for exactly the functions that call it. */
  private allowHooks(hooks: NonNullable<SvcIdentityStackProps["hooks"]>): void {
    for (const [hook, given] of Object.entries(hooks) as Array<[HookName, { function: IFunction }]>) {
      for (const caller of HOOK_CALLERS[hook]) {
        this.functions[caller].addToRolePolicy(
          new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [given.function.functionArn] }),
        );
      }
    }
  }

  private acknowledgeIndexWildcard(role: Role): void {
    const tableLogicalId = this.getLogicalId(this.table.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`,
      reason: "Table grants cover the table's indexes (GSI1); the wildcard is limited to indexes of this one table.",
    });
  }

  private allowMessaging(role: Role): void {
    // SMS goes straight to a phone number, which has no ARN: SNS only accepts "*" here.
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ["sns:Publish"], resources: ["*"] }));
    role.addToPrincipalPolicy(
      // SendEmail alone: the courier sends plain text (lib/notify/ses-sender.ts), never raw MIME.
      new PolicyStatement({ actions: ["ses:SendEmail"], resources: [SES_IDENTITIES] }),
    );
    Validations.of(role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "sns:Publish to a phone number (SMS) has no resource ARN to scope to; the statement allows only sns:Publish.",
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[${SES_IDENTITIES_FINDING}]`,
      reason:
        "The sender identity (domain or address) is chosen by the operator after deploy; the wildcard is limited to SES identities of this account and region, for the two send actions only.",
    });
  }
}

/**
 * The HTTP API answers every OPTIONS itself and adds the headers to every route's answer, as the
 * local gateway does (lib/local/gateway.ts); no origins configured: no CORS configuration at all.
 */
function corsPreflight(cors: CorsSettings): CorsPreflightOptions | undefined {
  if (cors.allowedOrigins.length === 0) return undefined;
  return {
    allowOrigins: cors.allowedOrigins,
    allowMethods: CORS_ALLOW_METHODS.map((method) => CorsHttpMethod[method]),
    allowHeaders: [...CORS_ALLOW_HEADERS],
    exposeHeaders: [...CORS_EXPOSE_HEADERS],
    maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
    // Bearer tokens, no cookies (lib/http/cors.ts); and never with "*".
    allowCredentials: false,
  };
}

/** The operator's settings with each hook function as its target ("lambda:<arn>", resolved at deploy). */
function withHookTargets(settingsJson: string | undefined, hooks: SvcIdentityStackProps["hooks"]): string | undefined {
  if (!hooks || Object.keys(hooks).length === 0) return settingsJson;
  const settings = JSON.parse(settingsJson ?? "{}") as { hooks?: Record<string, unknown> };
  const targets = Object.fromEntries(
    Object.entries(hooks).map(([hook, given]) => [
      hook,
      { target: `lambda:${given.function.functionArn}`, ...(given.timeoutMs && { timeoutMs: given.timeoutMs }) },
    ]),
  );
  return JSON.stringify({ ...settings, hooks: { ...settings.hooks, ...targets } });
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
