import { readFileSync } from "node:fs";
import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { parseSettings } from "../lib/config/validation";
import { MAX_SETTINGS_JSON_BYTES } from "./limits";
import { SvcIdentityStack } from "./stack";

/**
 * The CDK app (cdk.json). Synth-time environment:
 * - SVC_CONFIG: the operator's settings file (docs/configuration.md), checked now and inlined into
 *   the functions as SVC_CONFIG_JSON, since Lambda has no file of ours to read;
 * - SVC_ISSUER: the `iss` of issued tokens (default: the API's URL);
 * - SVC_MAIL_FROM: the SES-verified sender of e-mails;
 * - SVC_ALARM_TOPIC_ARN: the SNS topic the alarms notify (docs/operations.md);
 * - SVC_ACCOUNT_CONCURRENCY: the account's Lambda concurrency quota, if raised from 1,000;
 * - SVC_TRACE_CALLS=false: no X-Ray subsegments of the code's own (its cold-start cost saved).
 */

function settingsJson(path: string | undefined): string | undefined {
  if (!path) return undefined;
  let source: unknown;
  try {
    source = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`SVC_CONFIG ${path}: ${(error as Error).message}`);
  }
  // A typo in the file stops the synth here rather than every cold start after deploy.
  parseSettings(source);
  const json = JSON.stringify(source);
  // Lambda refuses more than 4 KB of environment in total, in bytes (a Cyrillic letter is two);
  // say so at synth, not at deploy.
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_SETTINGS_JSON_BYTES) {
    throw new Error(
      `SVC_CONFIG ${path}: ${bytes} bytes as JSON, more than the ${MAX_SETTINGS_JSON_BYTES} that fit a Lambda environment`,
    );
  }
  return json;
}

function positiveInteger(name: string, value: string | undefined): number | undefined {
  if (!value) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name}: a positive whole number, not "${value}"`);
  return Number(value);
}

const app = new App();
new SvcIdentityStack(app, "SvcIdentity", {
  // The CLI sets CDK_DEFAULT_* from whatever credentials and profile it finds. Nothing in
  // the stack looks anything up, so without them the account just stays a deploy-time
  // token; the region fallback serves runs outside the CLI.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION ?? "eu-west-1" },
  issuer: process.env.SVC_ISSUER || undefined,
  mailFrom: process.env.SVC_MAIL_FROM || undefined,
  settingsJson: settingsJson(process.env.SVC_CONFIG),
  alarmTopicArn: process.env.SVC_ALARM_TOPIC_ARN || undefined,
  accountConcurrency: positiveInteger("SVC_ACCOUNT_CONCURRENCY", process.env.SVC_ACCOUNT_CONCURRENCY),
  traceCalls: process.env.SVC_TRACE_CALLS !== "false",
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
