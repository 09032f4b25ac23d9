import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../lib/compiled/openapi";

/**
 * An integrator's first step: generate a client from the OpenAPI document and compile it.
 * OPENAPI_TYPESCRIPT points at another copy of the generator's CLI (a checkout without
 * the dev dependency installed).
 */
const GENERATOR = resolve(process.env.OPENAPI_TYPESCRIPT ?? "node_modules/openapi-typescript/bin/cli.js");
const TSC = resolve("node_modules/typescript/bin/tsc");

// Uses the generated types the way a client would; it compiles only if the token
// endpoint's documented errors hold the RFC 8628 polling codes.
const USAGE = `import type { components, paths } from "./client";
type TokenError = components["schemas"]["tokenError"]["error"];
export const polling: TokenError[] = ["authorization_pending", "access_denied", "expired_token", "slow_down"];
type Refused = paths["/svc/oauth/te"]["post"]["responses"][400]["content"]["application/json"];
export const refused: Refused = { error: "slow_down", error_description: "poll less often" };
type Token = paths["/svc/oauth/te"]["post"]["responses"][200]["content"]["application/json"];
export const token: Token = { access_token: "a", token_type: "Bearer", expires_in: 1, scope: "svc_api_user" };
`;

describe("openapi-typescript on the OpenAPI document", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-openapi-client-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("when a client is generated, its types compile with tsc --strict and carry the token errors", () => {
    expect(existsSync(GENERATOR), `${GENERATOR}: run npm install (openapi-typescript is a dev dependency)`).toBe(true);
    writeFileSync(join(dir, "openapi.json"), JSON.stringify(openApiDocument));
    execFileSync(process.execPath, [GENERATOR, join(dir, "openapi.json"), "-o", join(dir, "client.ts")], {
      stdio: "pipe",
    });
    writeFileSync(join(dir, "usage.ts"), USAGE);
    const args = ["--noEmit", "--strict", "--skipLibCheck", "--target", "es2022", "--module", "esnext"];
    let diagnostics = "";
    try {
      execFileSync(process.execPath, [TSC, ...args, "--moduleResolution", "bundler", join(dir, "usage.ts")], {
        stdio: "pipe",
        encoding: "utf8",
      });
    } catch (error) {
      diagnostics = String((error as { stdout?: string }).stdout || error);
    }
    expect(diagnostics).toBe("");
  }, 60_000);
});
