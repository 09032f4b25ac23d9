/**
 * Published on-demand list prices of one region, us-east-1 (N. Virginia), in US dollars,
 * the only place the bench's cost figures take prices from. The AWS pricing pages below
 * render their tables in the browser, so the figures were checked against copies of them
 * and AWS's own statements (each field's comment says which); check the pages before
 * relying on them, and change them here. Free tiers are left out on both sides.
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
  readOn: "2026-11-24, checked against copies of the pages below (their tables render in the browser)",
  sources: {
    dynamodb: "https://aws.amazon.com/dynamodb/pricing/on-demand/",
    lambda: "https://aws.amazon.com/lambda/pricing/",
    apiGateway: "https://aws.amazon.com/api-gateway/pricing/",
    cognito: "https://aws.amazon.com/cognito/pricing/",
  },
  dynamodb: {
    /** On-demand, per million read request units (since the November 2024 price cut; third-party copies of the page agree). */
    perMillionReadUnits: 0.125,
    /** On-demand, per million write request units; global tables' replicated writes cost the same per region. */
    perMillionWriteUnits: 0.625,
  },
  lambda: {
    /** arm64, first tier (up to 7.5 billion GB-seconds a month): 20% under x86's $0.0000166667, as AWS announced arm64. */
    perGbSecondArm: 0.0000133334,
    perMillionRequests: 0.2,
  },
  apiGateway: {
    /** HTTP API, first 300 million requests a month ($0.90 after), as the page's worked example reads. */
    httpApiPerMillionRequests: 1.0,
  },
  cognito: {
    /** Machine-to-machine: client_credentials token requests, first tier (the billing code's published rate). */
    m2mPerThousandTokenRequests: 2.25,
    /** Machine-to-machine: each app client with client_credentials, a month. */
    m2mAppClientPerMonth: 6,
    /** Essentials tier, per monthly active user beyond the free 10,000. */
    essentialsPerMau: 0.015,
  },
};
