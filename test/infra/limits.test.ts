import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, type CfnResource } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { build } from "esbuild";
import { afterAll, describe, expect, it, vi } from "vitest";
import { allFunctionsAssetBytes, functionBuildOptions, PROJECT_ROOT } from "../../infra/bundling";
import {
  type CfnTemplate,
  LIMITS,
  type LimitName,
  limitsTable,
  MAX_SETTINGS_JSON_BYTES,
  stackLimits,
} from "../../infra/limits";
import { SvcIdentityStack } from "../../infra/stack";
import { FUNCTION_NAMES } from "../../lib/http/route";

/**
 * The synthesized stack against the AWS quotas it could break (docs/decisions/stack-limits.md),
 * and against CloudFormation's resource schemas as `cdk synth` checks them.
 */

const cdkJson = JSON.parse(readFileSync(new URL("../../cdk.json", import.meta.url), "utf8"));
const outdirs: string[] = [];

function app(): App {
  const outdir = mkdtempSync(join(tmpdir(), "svc-limits-"));
  outdirs.push(outdir);
  // The feature flags of `cdk synth`, among them validateAgainstDefaultRules: schema findings fail.
  return new App({ outdir, context: { ...cdkJson.context, "aws:cdk:bundling-stacks": [] } });
}

function validationReport(from: App) {
  return JSON.parse(readFileSync(join(from.outdir, "validation-report.json"), "utf8")) as {
    pluginReports: Array<{
      violations: Array<{
        ruleName: string;
        violatingConstructs: Array<{ cloudFormationResource: { logicalId: string } }>;
      }>;
    }>;
  };
}

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

// Built while the stack synthesizes: esbuild runs in its own process.
const allAssets = allFunctionsAssetBytes(FUNCTION_NAMES);
const ALL_FUNCTIONS = "all functions together";

// The stack at its largest environment: settings JSON of the most bytes app.ts lets through
// (blank inside, since only its size counts here) and a sender address of the 254 characters
// an e-mail address may have.
const largest = app();
const stack = new SvcIdentityStack(largest, "SvcIdentity", {
  env: { region: "eu-west-1" },
  settingsJson: `{${" ".repeat(MAX_SETTINGS_JSON_BYTES - 2)}}`,
  mailFrom: `${"m".repeat(64)}@${"d".repeat(189)}`,
});
const template = Template.fromStack(stack).toJSON() as CfnTemplate;
const options = { stackName: stack.stackName };

function violations(broken: CfnTemplate, assets: Record<string, number> = {}) {
  return stackLimits(broken, { ...options, assetBytes: assets }).violations;
}

function onlyViolation(limit: LimitName, subject: string) {
  return [expect.objectContaining({ limit, subject, max: LIMITS[limit] })];
}

/** A copy of the template to break. */
function copy(): CfnTemplate {
  return structuredClone(template);
}

function idOf(type: string, from = template): string {
  const id = Object.keys(from.Resources).find((key) => from.Resources[key].Type === type);
  if (!id) throw new Error(`no ${type} in the template`);
  return id;
}

function propertiesOf(broken: CfnTemplate, type: string): Record<string, unknown> {
  const resource = broken.Resources[idOf(type, broken)];
  resource.Properties ??= {};
  return resource.Properties;
}

function addResources(broken: CfnTemplate, count: number, make: (i: number) => CfnTemplate["Resources"][string]) {
  for (let i = 0; i < count; i++) broken.Resources[`Added${i}`] = make(i);
}

describe("the synthesized stack against AWS quotas", () => {
  it("when measured, it is within every limit, and prints the figures", async () => {
    const report = stackLimits(template, { ...options, assetBytes: { [ALL_FUNCTIONS]: await allAssets } });
    console.log(`Stack limits (test/infra/limits.test.ts):\n${limitsTable(report)}`);
    expect(report.violations).toEqual([]);
    // Each limit was measured on something real, or the check would pass by finding nothing.
    const measured = Object.fromEntries(report.figures.map((f) => [f.limit, f.value]));
    for (const limit of [
      "resources",
      "templateBytes",
      "routesPerApi",
      "integrationsPerApi",
      "rolePolicyCharacters",
      "environmentBytes",
      "assetBytes",
      "alarmName",
      "dashboardName",
    ] as const) {
      expect(measured[limit], limit).toBeGreaterThan(0);
    }
  }, 60_000);

  it("when one function is built alone, its asset is below the figure of all functions built together", async () => {
    // hosted: the largest asset when each function was built alone (decisions/stack-limits.md).
    const alone = await build({
      ...functionBuildOptions("hosted", "asset"),
      absWorkingDir: PROJECT_ROOT,
      write: false,
    });
    const bytes = alone.outputFiles.reduce((sum, file) => sum + file.contents.byteLength, 0);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(await allAssets);
  }, 60_000);
});

describe("each limit, deliberately broken", () => {
  it("when the stack holds 501 resources, it fails the resources limit", () => {
    const broken = copy();
    addResources(broken, LIMITS.resources + 1 - Object.keys(broken.Resources).length, () => ({
      Type: "AWS::SNS::Topic",
    }));
    expect(violations(broken)).toEqual(onlyViolation("resources", "stack"));
  });

  it("when the template passes 1 MB, it fails the template size limit", () => {
    const broken = copy();
    broken.Description = "x".repeat(LIMITS.templateBytes);
    expect(violations(broken)).toEqual(onlyViolation("templateBytes", "stack"));
  });

  it.each([
    ["routesPerApi", "AWS::ApiGatewayV2::Route"],
    ["integrationsPerApi", "AWS::ApiGatewayV2::Integration"],
  ] as const)("when an API has 301 of them, it fails %s", (limit, type) => {
    const api = idOf("AWS::ApiGatewayV2::Api");
    // The API alone, so the added ones do not also pass the stack's resource limit.
    const broken: CfnTemplate = { Resources: { [api]: template.Resources[api] } };
    addResources(broken, LIMITS[limit] + 1, () => ({ Type: type, Properties: { ApiId: { Ref: api } } }));
    expect(violations(broken)).toEqual(onlyViolation(limit, api));
  });

  it("when a role's inline policies pass 10,240 characters together, it fails the role policy limit", () => {
    const broken = copy();
    const role = idOf("AWS::IAM::Role");
    // Two policies of about 5,300 characters each: under the limit alone, over it together.
    addResources(broken, 2, (i) => ({
      Type: "AWS::IAM::Policy",
      Properties: {
        PolicyName: `Extra${i}`,
        Roles: [{ Ref: role }],
        PolicyDocument: {
          Version: "2012-10-17",
          Statement: [{ Effect: "Allow", Action: "s3:GetObject", Resource: `arn:aws:s3:::${"b".repeat(5200)}/*` }],
        },
      },
    }));
    expect(violations(broken)).toEqual(onlyViolation("rolePolicyCharacters", role));
  });

  it("when a function's environment passes 4 KB, it fails the environment limit", () => {
    const broken = copy();
    const fn = idOf("AWS::Lambda::Function");
    const environment = broken.Resources[fn].Properties?.Environment as { Variables: Record<string, unknown> };
    environment.Variables.EXTRA = "x".repeat(LIMITS.environmentBytes);
    expect(violations(broken)).toEqual(onlyViolation("environmentBytes", fn));
  });

  it("when references are small in the template, it counts each as the longest ARN it could become", () => {
    const broken = copy();
    const fn = idOf("AWS::Lambda::Function");
    const table = idOf("AWS::DynamoDB::GlobalTable");
    // 32 table references: about 1.1 KB as written, more than 4 KB resolved.
    broken.Resources[fn].Properties = {
      Environment: {
        Variables: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`TABLE_${i}`, { Ref: table }])),
      },
    };
    expect(JSON.stringify(broken.Resources[fn].Properties).length).toBeLessThan(LIMITS.environmentBytes / 3);
    expect(violations(broken)).toEqual(onlyViolation("environmentBytes", fn));
  });

  it("when a value has an intrinsic it cannot size, it throws naming it rather than guessing", () => {
    const broken = copy();
    const environment = propertiesOf(broken, "AWS::Lambda::Function").Environment as {
      Variables: Record<string, unknown>;
    };
    environment.Variables.IMPORTED = { "Fn::ImportValue": "SomeExport" };
    expect(() => violations(broken)).toThrow(/Fn::ImportValue/);
  });

  it("when a function's asset passes 250 MB unzipped, it fails the asset limit", () => {
    expect(violations(copy(), { token: LIMITS.assetBytes + 1 })).toEqual(onlyViolation("assetBytes", "token"));
  });

  it.each([
    ["alarmName", "AWS::CloudWatch::Alarm", "AlarmName"],
    ["logGroupName", "AWS::Logs::LogGroup", "LogGroupName"],
    ["functionName", "AWS::Lambda::Function", "FunctionName"],
    ["dashboardName", "AWS::CloudWatch::Dashboard", "DashboardName"],
  ] as const)("when a name is one character too long, it fails %s", (limit, type, property) => {
    const broken = copy();
    propertiesOf(broken, type)[property] = "n".repeat(LIMITS[limit] + 1);
    expect(violations(broken)).toEqual(onlyViolation(limit, idOf(type)));
  });
});

describe("CloudFormation resource schemas (aws-cdk-lib's built-in validation, as in cdk synth)", () => {
  it("when the stack was synthesized, the validation ran and found nothing, warnings included", () => {
    expect(validationReport(largest).pluginReports).toEqual([]);
  });

  it("when a property has the wrong type or name or a required one is gone, synthesis fails naming each", () => {
    const broken = app();
    const copyOfStack = new SvcIdentityStack(broken, "SvcIdentity", { env: { region: "eu-west-1" } });
    const cfn = (fn: "meta" | "token" | "users") => copyOfStack.functions[fn].node.defaultChild as CfnResource;
    cfn("meta").addPropertyOverride("MemorySize", "lots");
    cfn("token").addPropertyOverride("Handlr", "index.handler");
    cfn("users").addPropertyDeletionOverride("Role");
    // The report also goes to stderr; the file holds the same.
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(() => Template.fromStack(copyOfStack)).toThrow();
    } finally {
      stderr.mockRestore();
    }
    const found = validationReport(broken).pluginReports.flatMap((plugin) =>
      plugin.violations.flatMap((v) =>
        v.violatingConstructs.map((c) => [v.ruleName, c.cloudFormationResource.logicalId]),
      ),
    );
    const idOfFunction = (fn: "meta" | "token" | "users") => copyOfStack.getLogicalId(cfn(fn));
    expect(found).toEqual(
      expect.arrayContaining([
        ["F3012", idOfFunction("meta")],
        ["F3002", idOfFunction("token")],
        ["F3003", idOfFunction("users")],
      ]),
    );
  });
});
