import { Duration } from "aws-cdk-lib";
import type { HttpApi } from "aws-cdk-lib/aws-apigatewayv2";
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Operation, type TableV2 } from "aws-cdk-lib/aws-dynamodb";
import type { Function as LambdaFunctionResource } from "aws-cdk-lib/aws-lambda";
import type { ITopic } from "aws-cdk-lib/aws-sns";
import { Construct } from "constructs";
import type { CountName } from "../lib/domain/metrics";
import type { FunctionName } from "../lib/http/route";
import { METRICS_NAMESPACE, METRICS_SERVICE } from "../lib/metrics";
import { HOOK_CALLERS, MESSAGING_FUNCTIONS } from "./function-needs";

/** The thresholds docs/operations.md lists; one 5-minute period each. */
export const ALARM_THRESHOLDS = {
  /** Percent of API answers that are 5xx, once at least API_5XX_MIN_REQUESTS came in. */
  api5xxPercent: 5,
  /** Unhandled errors or throttles of one function (the pipeline shapes domain errors, so any is a crash). */
  lambdaErrors: 1,
  lambdaThrottles: 1,
  dynamoSystemErrors: 1,
  dynamoThrottledRequests: 1,
  /** Failed password sign-ins (wrong password or code, throttled) across functions: credential stuffing. */
  signInFailures: 100,
  /** SMS or e-mails SNS or SES refused; a few may be a user's bad number, more are a quota or an outage. */
  messageSendFailures: 5,
  /** Synchronous hooks fail closed, so each failure refused a user something. */
  hookFailures: 1,
  /** Percent of the account's Lambda concurrency claimed: beyond it every function is throttled. */
  concurrencyPercent: 80,
} as const;
/** Lambda's default account concurrency in a region, when the stack is not told the raised one. */
export const DEFAULT_ACCOUNT_CONCURRENCY = 1000;
const API_5XX_MIN_REQUESTS = 20;
const PERIOD = Duration.minutes(5);

/** The functions whose password checks count SignInFailed (lib/domain/login/password-grant.ts). */
export const SIGN_IN_FUNCTIONS: readonly FunctionName[] = ["token", "hosted"];

/** The functions whose code asks a hook (hooks may be configured after deploy, in SVC_CONFIG). */
export const HOOK_FUNCTIONS: readonly FunctionName[] = [...new Set(Object.values(HOOK_CALLERS).flat())];

// The operations the store issues (lib/store/); CloudWatch alarms take at most 10 metrics.
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.SCAN,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

export interface MonitoringProps {
  api: HttpApi;
  table: TableV2;
  functions: Record<FunctionName, LambdaFunctionResource>;
  /** Where alarms notify (alarm and OK); unset: the alarms exist without actions. */
  alarmTopic?: ITopic;
  /** The account's Lambda concurrency quota in this region; default DEFAULT_ACCOUNT_CONCURRENCY. */
  accountConcurrency?: number;
}

/** Alarms and one dashboard from plain CloudWatch constructs (docs/operations.md). */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const alarm = (name: string, metric: IMetric, threshold: number, description: string) => {
      const created = new Alarm(this, name, {
        alarmName: `svc-identity-${name}`,
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // No data is no traffic, not a fault.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      if (props.alarmTopic) {
        created.addAlarmAction(new SnsAction(props.alarmTopic));
        created.addOkAction(new SnsAction(props.alarmTopic));
      }
      this.alarms.push(created);
      return created;
    };

    const apiRequests = props.api.metricCount({ period: PERIOD, statistic: "Sum" });
    const api5xx = props.api.metricServerError({ period: PERIOD, statistic: "Sum" });
    alarm(
      "Api5xxRate",
      new MathExpression({
        // A handful of requests would make one 5xx a high rate.
        expression: `IF(requests >= ${API_5XX_MIN_REQUESTS}, 100 * errors / requests, 0)`,
        usingMetrics: { requests: apiRequests, errors: api5xx },
        period: PERIOD,
        label: "API 5xx %",
      }),
      ALARM_THRESHOLDS.api5xxPercent,
      `More than ${ALARM_THRESHOLDS.api5xxPercent}% of API answers were 5xx in 5 minutes.`,
    );

    const fns = Object.entries(props.functions) as [FunctionName, LambdaFunctionResource][];
    for (const [name, fn] of fns) {
      alarm(
        `${name}-Errors`,
        fn.metricErrors({ period: PERIOD, statistic: "Sum" }),
        ALARM_THRESHOLDS.lambdaErrors,
        `The ${name} function failed unhandled (crash or timeout).`,
      );
      alarm(
        `${name}-Throttles`,
        fn.metricThrottles({ period: PERIOD, statistic: "Sum" }),
        ALARM_THRESHOLDS.lambdaThrottles,
        `The ${name} function was throttled (account or reserved concurrency).`,
      );
    }

    const tableSystemErrors = props.table.metricSystemErrorsForOperations({
      operations: TABLE_OPERATIONS,
      period: PERIOD,
    });
    const tableThrottled = props.table.metricThrottledRequestsForOperations({
      operations: TABLE_OPERATIONS,
      period: PERIOD,
    });
    alarm(
      "TableSystemErrors",
      tableSystemErrors,
      ALARM_THRESHOLDS.dynamoSystemErrors,
      "DynamoDB answered the table's requests with 5xx system errors.",
    );
    alarm(
      "TableThrottledRequests",
      tableThrottled,
      ALARM_THRESHOLDS.dynamoThrottledRequests,
      "DynamoDB throttled requests to the table (on-demand limits or a hot partition).",
    );

    const signInFailures = sumOver(SIGN_IN_FUNCTIONS, "SignInFailed", "failed sign-ins");
    alarm(
      "SignInFailureSpike",
      signInFailures,
      ALARM_THRESHOLDS.signInFailures,
      `At least ${ALARM_THRESHOLDS.signInFailures} failed password sign-ins in 5 minutes: a credential-stuffing signal.`,
    );
    const messageFailures = sumOver([...MESSAGING_FUNCTIONS], "MessageSendFailed", "messages not sent");
    alarm(
      "MessageSendFailures",
      messageFailures,
      ALARM_THRESHOLDS.messageSendFailures,
      `At least ${ALARM_THRESHOLDS.messageSendFailures} SMS or e-mails were refused by SNS or SES in 5 minutes (spend limit, sandbox, quota).`,
    );
    const hookFailures = sumOver(HOOK_FUNCTIONS, "HookFailed", "hook failures");
    alarm(
      "HookFailures",
      hookFailures,
      ALARM_THRESHOLDS.hookFailures,
      "An extension hook failed, timed out or answered outside its contract (docs/hooks.md).",
    );

    const accountConcurrency = props.accountConcurrency ?? DEFAULT_ACCOUNT_CONCURRENCY;
    // Account-wide: functions of this stack and any other share the quota, and its exhaustion throttles all.
    const claimedConcurrency = new Metric({
      namespace: "AWS/Lambda",
      metricName: "ClaimedAccountConcurrency",
      period: PERIOD,
      statistic: "Maximum",
    });
    alarm(
      "LambdaConcurrency",
      claimedConcurrency,
      Math.floor((accountConcurrency * ALARM_THRESHOLDS.concurrencyPercent) / 100),
      `Lambda concurrency claimed in the account reached ${ALARM_THRESHOLDS.concurrencyPercent}% of ${accountConcurrency}; at the quota every function is throttled.`,
    );

    this.dashboard = new Dashboard(this, "Dashboard", {
      dashboardName: "svc-identity",
      widgets: [
        [
          new GraphWidget({ title: "API requests and 5xx", left: [apiRequests], right: [api5xx], width: 8 }),
          new GraphWidget({
            title: "API latency (p99, ms)",
            left: [props.api.metricLatency({ period: PERIOD, statistic: "p99" })],
            width: 8,
          }),
          new GraphWidget({
            title: "Sign-ins and tokens",
            left: [search("SignIn", "method,result"), signInFailures],
            right: [search("TokensIssued", "grant")],
            width: 8,
          }),
        ],
        [
          new GraphWidget({
            title: "Lambda errors",
            left: fns.map(([, fn]) => fn.metricErrors({ period: PERIOD, statistic: "Sum" })),
            width: 6,
          }),
          new GraphWidget({
            title: "Lambda throttles",
            left: fns.map(([, fn]) => fn.metricThrottles({ period: PERIOD, statistic: "Sum" })),
            width: 6,
          }),
          // One graph each: both sums name their per-operation metrics alike, which one graph refuses.
          new GraphWidget({ title: "DynamoDB system errors", left: [tableSystemErrors], width: 6 }),
          new GraphWidget({ title: "DynamoDB throttled requests", left: [tableThrottled], width: 6 }),
        ],
        [
          new GraphWidget({
            title: "Registrations",
            left: [search("Registration", "result")],
            width: 6,
          }),
          new GraphWidget({
            title: "Messages sent and failed",
            left: [search("MessageSent", "channel,message")],
            right: [search("MessageSendFailed", "channel,message")],
            width: 6,
          }),
          new GraphWidget({ title: "Hook failures", left: [search("HookFailed", "hook,why")], width: 6 }),
          new GraphWidget({
            title: "Lambda concurrency (max)",
            left: [claimedConcurrency],
            right: fns.map(([, fn]) => fn.metric("ConcurrentExecutions", { period: PERIOD, statistic: "Maximum" })),
            width: 6,
          }),
        ],
        [new AlarmStatusWidget({ title: "Alarms", alarms: this.alarms, width: 24 })],
      ],
    });
  }
}

/** A count the functions emit in EMF (lib/metrics.ts), for one function. */
function serviceMetric(name: CountName, fn: FunctionName): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: METRICS_SERVICE, function: fn },
    period: PERIOD,
    statistic: "Sum",
  });
}

/** A count summed over the functions that emit it, filed by function alone (lib/metrics.ts). */
function sumOver(functions: readonly FunctionName[], name: CountName, label: string): MathExpression {
  return new MathExpression({
    expression: functions.map((_, i) => `f${i}`).join(" + "),
    usingMetrics: Object.fromEntries(functions.map((fn, i) => [`f${i}`, serviceMetric(name, fn)])),
    period: PERIOD,
    label,
  });
}

/** Every dimension combination of a count (a dashboard may search; an alarm may not). */
function search(name: CountName, dimensions: string): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},service,function,${dimensions}} MetricName="${name}"', 'Sum', 300)`,
    usingMetrics: {},
    period: PERIOD,
    label: name,
  });
}
