import type { Prices } from "./prices";

/**
 * What one request costs on AWS, from what it did: DynamoDB's capacity units, the Lambda
 * invocation billed by its duration at the function's memory, and API Gateway's request
 * charge. Pure arithmetic over a prices record (scripts/bench/prices.ts).
 */

export interface RequestWork {
  /** Read request units, as DynamoDB bills them. */
  rcu: number;
  /** Write request units, as DynamoDB bills them (a transaction's writes twice). */
  wcu: number;
  /** Billed Lambda time before rounding, ms. */
  durationMs: number;
  /** The function's configured memory, MB. */
  memoryMb: number;
}

/** US dollars of one request, by service. */
export interface RequestCost {
  dynamodb: number;
  lambda: number;
  apiGateway: number;
  total: number;
}

/** Lambda bills duration in 1 ms steps, rounded up. */
export function billedMs(durationMs: number): number {
  return Math.max(1, Math.ceil(durationMs));
}

export function requestCost(work: RequestWork, prices: Prices): RequestCost {
  const dynamodb =
    (work.rcu * prices.dynamodb.perMillionReadUnits + work.wcu * prices.dynamodb.perMillionWriteUnits) / 1e6;
  const gbSeconds = (billedMs(work.durationMs) / 1000) * (work.memoryMb / 1024);
  const lambda = gbSeconds * prices.lambda.perGbSecondArm + prices.lambda.perMillionRequests / 1e6;
  const apiGateway = prices.apiGateway.httpApiPerMillionRequests / 1e6;
  return { dynamodb, lambda, apiGateway, total: dynamodb + lambda + apiGateway };
}

/** A flow of several requests (a form post and its code exchange) costs the sum of its requests. */
export function flowCost(requests: RequestWork[], prices: Prices): RequestCost {
  const zero: RequestCost = { dynamodb: 0, lambda: 0, apiGateway: 0, total: 0 };
  return requests
    .map((work) => requestCost(work, prices))
    .reduce(
      (sum, cost) => ({
        dynamodb: sum.dynamodb + cost.dynamodb,
        lambda: sum.lambda + cost.lambda,
        apiGateway: sum.apiGateway + cost.apiGateway,
        total: sum.total + cost.total,
      }),
      zero,
    );
}

/** Cognito M2M's price of one client_credentials token. */
export function cognitoPerToken(prices: Prices): number {
  return prices.cognito.m2mPerThousandTokenRequests / 1000;
}
