import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";

/** The id every answer and log line of a request carries: API Gateway's, else Lambda's. */
export function requestIdOf(event: APIGatewayProxyEventV2, context: Context): string {
  return event?.requestContext?.requestId || context?.awsRequestId || randomUUID();
}
