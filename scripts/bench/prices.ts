/**
 * Published on-demand list prices of one region, us-east-1 (N. Virginia), in US dollars,
 * the only place the bench's cost figures take prices from. No network was available when
 * they were written down (2026-11-24): they are AWS's well-known list prices as published
 * on the pages below, recalled rather than re-read; check them there before relying on
 * them, and change them here. Free tiers are left out on both sides.
 */
export interface Prices {
  region: string;
  readOn: string;
  sources: Record<"dynamodb" | "lambda" | "apiGateway" | "cognito", string>;
  dynamodb: { perMillionReadUnits: number; perMillionWriteUnits: number };
  lambda: { perGbSecondArm: number; perMillionRequests: number };
  apiGateway: { httpApiPerMillionRequests: number };
  cognito: { m2mPerThousandTokenRequests: number; m2mAppClientPerMonth: number; essentialsPerMau: number };
}

export const PRICES: Prices = {
  region: "us-east-1",
  readOn: "2026-11-24, recalled from the pages below (not fetched: no network)",
  sources: {
    dynamodb: "https://aws.amazon.com/dynamodb/pricing/on-demand/",
    lambda: "https://aws.amazon.com/lambda/pricing/",
    apiGateway: "https://aws.amazon.com/api-gateway/pricing/",
    cognito: "https://aws.amazon.com/cognito/pricing/",
  },
  dynamodb: {
    /** On-demand, per million read request units (since the November 2024 price cut). */
    perMillionReadUnits: 0.125,
    /** On-demand, per million write request units. */
    perMillionWriteUnits: 0.625,
  },
  lambda: {
    /** arm64, first pricing tier (up to 7.5 billion GB-seconds a month). */
    perGbSecondArm: 0.0000133334,
    perMillionRequests: 0.2,
  },
  apiGateway: {
    /** HTTP API, first 300 million requests a month. */
    httpApiPerMillionRequests: 1.0,
  },
  cognito: {
    /** Machine-to-machine: client_credentials token requests. */
    m2mPerThousandTokenRequests: 2.25,
    /** Machine-to-machine: each app client with client_credentials, a month. */
    m2mAppClientPerMonth: 6,
    /** Essentials tier, per monthly active user beyond the free 10,000. */
    essentialsPerMau: 0.015,
  },
};
