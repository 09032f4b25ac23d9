import { describe, expect, it } from "vitest";
import { OAuthError, problems, StorageUnavailableError } from "../../../lib/domain/errors";
import { errorResult } from "../../../lib/http/error-body";

const field = [{ error: "required", pos: "email", desc: "email is required" }];

describe("errorResult", () => {
  it("when an OAuth description holds a quote, a backslash or non-ASCII, each becomes ? (RFC 6749 5.2)", () => {
    const result = errorResult(new OAuthError("invalid_request", 'say "hi" \\ café'), "oauth", "req-1");
    expect(JSON.parse(result.body)).toEqual({ error: "invalid_request", error_description: "say ?hi? ? caf?" });
  });

  it("when a field error is shaped for v3, it wraps it in wrong_values with type on each item", () => {
    const result = errorResult(problems.wrongValues(field), "v3", "req-1");
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body)).toEqual({
      type: "input_error",
      error: "wrong_values",
      desc: "the request has invalid values",
      errors: [{ type: "input_error", error: "required", pos: "email", desc: "email is required" }],
    });
  });

  it("when the same error is shaped for v2, it becomes validation_error items", () => {
    const result = errorResult(problems.wrongValues(field), "v2", "req-1");
    expect(JSON.parse(result.body)).toEqual({
      errors: [{ code: "validation_error", desc: "email: email is required", params: { field: "email" } }],
    });
  });

  it("when the same error is shaped for registration, it lists errMsg and field with an empty context", () => {
    const result = errorResult(problems.wrongValues(field), "reg", "req-1");
    expect(JSON.parse(result.body)).toEqual({ errors: [{ errMsg: "email is required", field: "email" }], context: "" });
  });

  it("when an OAuth error is shaped, it follows RFC 6749 5.2 and is not cached", () => {
    const result = errorResult(new OAuthError("invalid_scope", "nope"), "oauth", "req-1");
    expect(result.statusCode).toBe(400);
    expect(result.headers["cache-control"]).toBe("no-store");
    expect(JSON.parse(result.body)).toEqual({ error: "invalid_scope", error_description: "nope" });
  });

  it("when an unexpected error is thrown, it answers a generic 500 with the request id and nothing internal", () => {
    const result = errorResult(new Error("secret table name and stack"), "v3", "req-42");
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain("secret");
    expect(JSON.parse(result.body)).toEqual({
      type: "process_error",
      error: "internal_error",
      desc: "internal error; request id req-42",
      params: { requestId: "req-42" },
    });
  });

  it("when storage cannot be reached, it answers 503 with Retry-After", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const result = errorResult(new StorageUnavailableError(refused), "v3", "req-7");
    expect(result.statusCode).toBe(503);
    expect(result.headers["retry-after"]).toBe("1");
    expect(JSON.parse(result.body)).toMatchObject({ error: "service_unavailable", params: { requestId: "req-7" } });
  });
});
