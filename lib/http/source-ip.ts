import { isIP } from "node:net";
import type { APIGatewayProxyEventV2 } from "aws-lambda";

/**
 * The end user's address: the first X-Forwarded-For entry the calling application passes
 * (interface §5.1), else the connection's. An entry that is not an IP address is ignored: it
 * keys the per-address brute-force counters, and text of any size there broke the key.
 */
export function sourceIpOf(event: Pick<APIGatewayProxyEventV2, "headers" | "requestContext">): string | undefined {
  const forwarded = event.headers?.["x-forwarded-for"]?.split(",")[0]?.trim();
  if (forwarded && isIP(forwarded)) return forwarded;
  return event.requestContext?.http?.sourceIp;
}

/** The address of the connection itself, which no caller can choose (API Gateway's sourceIp). */
export function connectionIpOf(event: Pick<APIGatewayProxyEventV2, "requestContext">): string | undefined {
  return event.requestContext?.http?.sourceIp;
}
