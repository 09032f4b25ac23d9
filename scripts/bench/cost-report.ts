import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { memoryMbOf } from "../../infra/function-needs";
import type { FunctionName } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import type { ColdStart } from "./cold-start";
import { billedMs, cognitoPerToken, flowCost, type RequestCost, type RequestWork, requestCost } from "./cost";
import type { MeasuredFlow } from "./cost-flows";
import type { Prices } from "./prices";
import { type RoundTripRow, succeeded } from "./round-trips";

/**
 * The bench's cost section: every route of the round-trip sweep and the measured flows
 * priced (scripts/bench/cost.ts), Cognito's price for the same work beside them, and the
 * same figures as JSON for a load model (shape: docs/performance.md, "Cost per request").
 */

export const COST_FILE = ".local/bench/cost.json";

/** Sign-ins a month of the monthly active user the comparison with Cognito Essentials assumes. */
export const SIGN_INS_PER_MAU = 10;
/** Refreshes after each of those sign-ins, in the comparison's second line. */
export const REFRESHES_PER_SIGN_IN = 10;

const fnOfRoute = new Map<string, FunctionName>(routes.map((route) => [route.id, route.fn]));

function work(rcu: number, wcu: number, handlerMs: number, fn: FunctionName): RequestWork {
  return { rcu, wcu, durationMs: handlerMs, memoryMb: memoryMbOf(fn) };
}

const perMillion = (cost: RequestCost) => ({
  dynamodb: cost.dynamodb * 1e6,
  lambda: cost.lambda * 1e6,
  apiGateway: cost.apiGateway * 1e6,
  total: cost.total * 1e6,
});

export interface CostReport {
  prices: { region: string; readOn: string };
  routes: {
    id: string;
    mode: string;
    fn: FunctionName;
    memoryMb: number;
    sample: string;
    rcu: number;
    wcu: number;
    handlerMs: number;
    runs: number;
    perMillionUsd: RequestCost;
  }[];
  flows: {
    name: string;
    requests: (MeasuredFlow["requests"][number] & { memoryMb: number; billedMs: number })[];
    runs: number;
    perMillionUsd: RequestCost;
    /** Every request of the flow a cold start: its bundle's import time billed too (measured with cold-start). */
    coldPerMillionUsd?: RequestCost;
  }[];
  cognito: {
    m2mPerTokenUsd: number;
    clientCredentialsPerTokenUsd: number;
    /** Ours over Cognito's. */
    m2mRatio: number;
    essentialsPerMauUsd: number;
    mau: { signInsPerMonth: number; refreshesPerSignIn: number; signInsUsd: number; withRefreshesUsd: number };
  };
}

export function costReport(
  rows: RoundTripRow[],
  flows: MeasuredFlow[],
  prices: Prices,
  coldStarts: ColdStart[] = [],
): CostReport {
  const importMs = new Map(coldStarts.filter((c) => c.fn).map((c) => [c.fn, c.importMs]));
  const routeRows = rows.filter(succeeded).flatMap((row) => {
    const fn = fnOfRoute.get(row.id);
    if (!fn) return [];
    const rcu = row.rcu ?? 0;
    const wcu = row.wcu ?? 0;
    const handlerMs = row.handlerMs ?? 0;
    const cost = requestCost(work(rcu, wcu, handlerMs, fn), prices);
    return [
      {
        id: row.id,
        mode: row.mode,
        fn,
        memoryMb: memoryMbOf(fn),
        sample: row.sample,
        rcu,
        wcu,
        handlerMs,
        runs: 1,
        perMillionUsd: perMillion(cost),
      },
    ];
  });
  const flowRows = flows.map((flow) => {
    const warm = flow.requests.map((r) => work(r.rcu, r.wcu, r.handlerMs, r.fn));
    const cold = flow.requests.map((r) => work(r.rcu, r.wcu, r.handlerMs + (importMs.get(r.fn) ?? Number.NaN), r.fn));
    const coldCost = flowCost(cold, prices);
    return {
      name: flow.name,
      requests: flow.requests.map((r) => ({ ...r, memoryMb: memoryMbOf(r.fn), billedMs: billedMs(r.handlerMs) })),
      runs: flow.runs,
      perMillionUsd: perMillion(flowCost(warm, prices)),
      ...(Number.isFinite(coldCost.total) && { coldPerMillionUsd: perMillion(coldCost) }),
    };
  });
  const perRequest = (prefix: string) => {
    const flow = flowRows.find((f) => f.name.startsWith(prefix));
    if (!flow) throw new Error(`the cost flows have no ${prefix}`);
    return flow.perMillionUsd.total / 1e6;
  };
  const clientCredentials = perRequest("client_credentials");
  const signIns = SIGN_INS_PER_MAU * perRequest("hosted sign-in");
  return {
    prices: { region: prices.region, readOn: prices.readOn },
    routes: routeRows,
    flows: flowRows,
    cognito: {
      m2mPerTokenUsd: cognitoPerToken(prices),
      clientCredentialsPerTokenUsd: clientCredentials,
      m2mRatio: clientCredentials / cognitoPerToken(prices),
      essentialsPerMauUsd: prices.cognito.essentialsPerMau,
      mau: {
        signInsPerMonth: SIGN_INS_PER_MAU,
        refreshesPerSignIn: REFRESHES_PER_SIGN_IN,
        signInsUsd: signIns,
        withRefreshesUsd: signIns + SIGN_INS_PER_MAU * REFRESHES_PER_SIGN_IN * perRequest("refresh_token"),
      },
    },
  };
}

export function writeCostReport(report: CostReport, file = COST_FILE): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

const usd = (value: number) => `$${value >= 1 ? value.toFixed(2) : value.toPrecision(3)}`;
const units = (value: number) => String(Number(value.toFixed(2)));

export function routeCostTable(report: CostReport): string[][] {
  return [
    ["route", "mode", "MB", "RCU", "WCU", "handler ms", "DynamoDB", "Lambda", "API Gateway", "$ per million"],
    ...report.routes.map((r) => [
      r.id,
      r.mode,
      String(r.memoryMb),
      units(r.rcu),
      units(r.wcu),
      r.handlerMs.toFixed(1),
      usd(r.perMillionUsd.dynamodb),
      usd(r.perMillionUsd.lambda),
      usd(r.perMillionUsd.apiGateway),
      usd(r.perMillionUsd.total),
    ]),
  ];
}

export function flowCostTable(report: CostReport): string[][] {
  return [
    [
      "flow",
      "requests",
      "RCU",
      "WCU",
      "billed ms (median)",
      "DynamoDB",
      "Lambda",
      "API Gateway",
      "$ per million, warm",
      "cold",
    ],
    ...report.flows.map((f) => {
      const sum = (pick: (r: (typeof f.requests)[number]) => number) => f.requests.reduce((n, r) => n + pick(r), 0);
      return [
        f.name,
        f.requests.map((r) => `${r.fn} ${r.memoryMb} MB`).join(" + "),
        units(sum((r) => r.rcu)),
        units(sum((r) => r.wcu)),
        f.requests.map((r) => String(r.billedMs)).join(" + "),
        usd(f.perMillionUsd.dynamodb),
        usd(f.perMillionUsd.lambda),
        usd(f.perMillionUsd.apiGateway),
        usd(f.perMillionUsd.total),
        f.coldPerMillionUsd ? usd(f.coldPerMillionUsd.total) : "-",
      ];
    }),
  ];
}

/** The comparison with Cognito, as lines of text. */
export function cognitoLines(report: CostReport, prices: Prices): string[] {
  const { cognito } = report;
  const mau = cognito.mau;
  const inverse = (ratio: number) => `1/${(1 / ratio).toFixed(0)}`;
  return [
    `client_credentials: ${usd(cognito.clientCredentialsPerTokenUsd * 1e6)} per million tokens, $${cognito.clientCredentialsPerTokenUsd.toExponential(2)} per token; ` +
      `Cognito M2M $${cognito.m2mPerTokenUsd} per token (${usd(prices.cognito.m2mPerThousandTokenRequests)} per 1,000, plus ${usd(prices.cognito.m2mAppClientPerMonth)} per app client a month): ` +
      `ours / Cognito's = ${inverse(cognito.m2mRatio)} (target <= 1/1000: ${cognito.m2mRatio <= 1 / 1000 ? "met" : "NOT MET"})`,
    `a monthly active user signing in ${mau.signInsPerMonth} times (hosted sign-in): ${usd(mau.signInsUsd)} a month; ` +
      `Cognito Essentials ${usd(cognito.essentialsPerMauUsd)} per MAU: ours / Cognito's = ${inverse(mau.signInsUsd / cognito.essentialsPerMauUsd)}`,
    `the same user with ${mau.refreshesPerSignIn} refreshes after each sign-in: ${usd(mau.withRefreshesUsd)} a month: ` +
      `ours / Cognito's = ${inverse(mau.withRefreshesUsd / cognito.essentialsPerMauUsd)}`,
  ];
}
