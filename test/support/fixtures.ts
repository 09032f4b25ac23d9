import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import type { Account } from "../../lib/domain/accounts/account";
import { registerClient } from "../../lib/domain/clients/admin";
import { type ClientDefinition, GRANT_TYPES } from "../../lib/domain/clients/client";
import { hashPassword } from "../../lib/domain/credentials/password-hash";
import { ALL_PERMISSIONS } from "../../lib/domain/permissions";
import type { FunctionName, HttpResult } from "../../lib/http/route";
import { prepareEvent } from "../../lib/local/events";
import { loadFunction } from "../../lib/local/functions";
import { lambdaContext } from "../../lib/local/gateway";
import { mintUserToken } from "../../lib/local/user-token";

export function uniqueId(prefix = "u"): string {
  return `${prefix}${randomBytes(5).toString("hex")}`;
}

export async function createClient(
  scopes: string[] = [...ALL_PERMISSIONS],
  extra: Partial<Omit<ClientDefinition, "clientId" | "scopes">> = {},
) {
  const clientId = uniqueId("client-");
  // The suite signs users in with the password grant; a test that wants less says so.
  return registerClient(services().clients, { clientId, scopes, grantTypes: [...GRANT_TYPES], ...extra });
}

/** A system-mode access token, as client_credentials would issue it. */
export async function systemToken(scopes: string[], clientId = "test-client"): Promise<string> {
  const { token } = await services().accessTokens.issue({
    sub: clientId,
    clientId,
    scopes,
    ttlSeconds: config().settings.tokens.accessTtlSeconds,
  });
  return token;
}

/** A user-mode access token for `sub` (the session check arrives with user login). */
export async function userToken(sub: string, scopes: string[], clientId = "test-client"): Promise<string> {
  return (await mintUserToken(sub, clientId, scopes, 600)).token;
}

/** The Authorization header of a system-mode caller with these scopes. */
export async function systemBearer(scopes: string[], clientId?: string): Promise<string> {
  return `Bearer ${await systemToken(scopes, clientId)}`;
}

/** The Authorization header of `sub` signed in with these scopes. */
export async function userBearer(sub: string, scopes: string[], clientId?: string): Promise<string> {
  return `Bearer ${await userToken(sub, scopes, clientId)}`;
}

/** Small scrypt parameters (stored with each hash), so test logins cost milliseconds. */
export const FAST_SCRYPT = { N: 2 ** 10, r: 8, p: 1, keyLength: 32 };

export async function seedAccount(overrides: Partial<Account> = {}, password?: string): Promise<Account> {
  const now = Math.floor(Date.now() / 1000);
  const account: Account = {
    sub: uniqueId("user-"),
    family_name: "Ivanov",
    given_name: "Ivan",
    middle_name: "Ivanovich",
    locked: false,
    email: { value: `${uniqueId("mail")}@example.com`, verified: true },
    phone_number: { value: `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`, verified: true },
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  await services().accounts.create(
    account,
    password === undefined ? undefined : await hashPassword(password, FAST_SCRYPT),
  );
  return account;
}

/** Runs one function's handler through its real middy chain. */
export async function invoke(fn: FunctionName, event: APIGatewayProxyEventV2) {
  const handler = await loadFunction(fn);
  const result = (await handler(event, lambdaContext(fn, event.requestContext.requestId))) as HttpResult;
  return {
    ...result,
    // Pages answer HTML, the passkey script JavaScript and the style sheets CSS; everything else JSON.
    json: (result.body && !/^text\/(html|javascript|css)/.test(result.headers["content-type"] ?? "")
      ? JSON.parse(result.body)
      : {}) as Record<string, unknown>,
  };
}

/** A sample event from events/, with its placeholders filled (see lib/local/events.ts). */
export async function sampleEvent(
  path: string,
  values: Record<string, string> = {},
  /** Changes the raw event first, e.g. a header, so its placeholder is never filled (no token minted). */
  patch?: (raw: APIGatewayProxyEventV2) => void,
): Promise<APIGatewayProxyEventV2> {
  const raw = JSON.parse(readFileSync(path, "utf8")) as APIGatewayProxyEventV2;
  patch?.(raw);
  return prepareEvent(raw, values);
}
