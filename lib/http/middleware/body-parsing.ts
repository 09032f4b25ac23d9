import type { MiddlewareObj } from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import httpUrlencodeBodyParser from "@middy/http-urlencode-body-parser";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { ApiError } from "../../domain/errors";
import type { SvcContext } from "../request-state";

/** Larger bodies are refused before parsing: nothing the interface accepts comes near it. */
export const MAX_BODY_BYTES = 1024 * 1024;

const jsonParser = httpJsonBodyParser();
const formParser = httpUrlencodeBodyParser();

function bodyBytes(event: APIGatewayProxyEventV2): number {
  if (!event.body) return 0;
  return event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body);
}

/**
 * Parses the body the route declares (JSON or form) with middy's parsers, and turns
 * their 415/422 answers into 400s of the route's shape. Routes without a body ignore one.
 */
export function bodyParsing(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const declared = request.context.svc.route?.request?.body;
      const { event } = request;
      if (!declared) {
        (event as { body?: unknown }).body = undefined;
        return;
      }
      if (bodyBytes(event) > MAX_BODY_BYTES) {
        throw new ApiError(400, "input_error", "body_too_large", `the body exceeds ${MAX_BODY_BYTES} bytes`);
      }
      const empty = event.body === undefined || event.body === "";
      if (empty) {
        if (declared.required) throw new ApiError(400, "input_error", "wrong_values", "a request body is required");
        // An optional body left out: nothing to validate.
        (event as { body?: unknown }).body = undefined;
        return;
      }
      const expected = declared.contentType === "json" ? "application/json" : "application/x-www-form-urlencoded";
      const contentType = (event.headers?.["content-type"] ?? "").toLowerCase();
      // SCIM clients send their own JSON media type (RFC 7644 3.1).
      const scimJson = declared.contentType === "json" && contentType.startsWith("application/scim+json");
      if (!contentType.startsWith(expected) && !scimJson) {
        throw new ApiError(400, "input_error", "wrong_content_type", `Content-Type must be ${expected}`);
      }
      try {
        if (declared.contentType === "json") await jsonParser.before?.(request as never);
        else await formParser.before?.(request as never);
      } catch {
        throw new ApiError(
          400,
          "input_error",
          "malformed_body",
          declared.contentType === "json" ? "the body is not valid JSON" : "the body is not a valid form",
        );
      }
    },
  };
}
