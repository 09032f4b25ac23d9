import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { expect } from "vitest";
import type { ApiVersion } from "../../lib/http/route";

/** The first sample event (events/) of each route key, for tests that sweep the whole route table. */
export function firstSampleOfEachRoute(): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const dir of readdirSync("events", { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of readdirSync(join("events", dir.name)).sort()) {
      if (!name.endsWith(".json") || name.startsWith("svc-config")) continue;
      const file = join("events", dir.name, name);
      const event = JSON.parse(readFileSync(file, "utf8")) as APIGatewayProxyEventV2;
      if (event.routeKey && !byKey.has(event.routeKey)) byKey.set(event.routeKey, file);
    }
  }
  return byKey;
}

/** An error body in the shape of the route's version (errorResult). */
export function expectVersionShape(
  version: ApiVersion,
  status: number,
  json: Record<string, unknown>,
  body?: string,
): void {
  if (status < 400) return;
  if (version === "page") {
    // A page for the browser, never a JSON error or a stack trace.
    expect(body?.startsWith("<!doctype html>")).toBe(true);
    return;
  }
  if (version === "v3") {
    expect(json).toMatchObject({ error: expect.any(String), desc: expect.any(String) });
  } else if (version === "v2" || version === "v1" || version === "reg") {
    expect(json.errors).toBeInstanceOf(Array);
    expect((json.errors as unknown[]).length).toBeGreaterThan(0);
    for (const error of json.errors as Record<string, unknown>[]) {
      expect(Object.keys(error)).toEqual(expect.arrayContaining(version === "reg" ? ["errMsg"] : ["code", "desc"]));
    }
  } else if (version === "oauth") {
    expect(json).toMatchObject({ error: expect.any(String) });
  }
}

/**
 * Values for every {{placeholder}} of the samples that is not a token: arbitrary but
 * well-formed (a state that passes the schema), so a sweep reaches the part it tests.
 */
export const PLACEHOLDER_VALUES: Record<string, string> = Object.fromEntries(
  [
    "context",
    "code",
    "deviceId",
    "consentId",
    "keepDeviceId",
    "current",
    "email",
    "phone",
    "password",
    "newPassword",
    "username",
    "sub",
    "refreshToken",
    "clientId",
    "clientSecret",
    "clientBasic",
    "totpId",
    "providerCode",
  ].map((name) => [name, `sample-${name}`]),
);
PLACEHOLDER_VALUES.base32Secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
PLACEHOLDER_VALUES.otpCode = "123456";
PLACEHOLDER_VALUES.state = "u1.c2FtcGxlLXVzZXI.AAAAAAAAAAAAAAAAAAAAAA";
PLACEHOLDER_VALUES.qrCode = "sample-qr-code-0123456789";
