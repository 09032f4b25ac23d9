import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { config } from "../config";
import { scimBaseUrl, scimStore, services } from "../container";
import { organizationOfToken, scimConnectionUseCases } from "../domain/scim/connection";
import { sealInteraction } from "../http/browser";
import { publicUrl } from "../http/public-url";
import { mintBrowserSession, mintUserToken } from "./user-token";

/**
 * Sample events (events/) are real API Gateway payload 2.0 events, except that tokens
 * expire: a header may say `Bearer {{systemToken:<scopes>}}` or
 * `Bearer {{userToken:<sub>:<scopes>}}`, a sign-in form `{{interaction:<csrf>:<query>}}`, a
 * DPoP header `{{dpopProof:<method>:<path>}}` (a fresh proof, RFC 9449), a hosted-pages session
 * cookie `{{browserSession:<sub>}}` (the account console signed in), an organization's SCIM
 * token `{{scimToken:<orgId>}}` (taken once per process, again when it stopped working), and any
 * `{{name}}` is taken from `values`.
 * Tokens are minted for the application `values.clientId` (invoke passes the bootstrap
 * client's), so calls that check the application's own grants (fedToken) work too.
 * Each prepared event also gets a fresh request id and time.
 */

const PLACEHOLDER = /\{\{([^}]+)\}\}/g;

/** The sample client's DPoP key: one per process, as a client keeps its key. */
let dpopKey: ReturnType<typeof generateKeyPair> | undefined;

async function dpopProof(method: string, path: string): Promise<string> {
  dpopKey ??= generateKeyPair("ES256");
  const { publicKey, privateKey } = await dpopKey;
  const htu = publicUrl(config().issuer, path);
  return new SignJWT({ jti: randomUUID(), htm: method, htu, iat: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(publicKey) })
    .sign(privateKey);
}

/** One SCIM token per organization and process while it stays live: events prepared together all carry it. */
const scimTokens = new Map<string, string>();

async function scimTokenOf(orgId: string): Promise<string> {
  const known = scimTokens.get(orgId);
  if (known && (await organizationOfToken(scimStore(), known)) === orgId) return known;
  const { organizations, events } = services();
  const scim = scimConnectionUseCases({ orgs: organizations, events, scim: scimStore(), baseUrl: scimBaseUrl() });
  const { token } = await scim.rotate({ mode: "system" }, orgId);
  scimTokens.set(orgId, token);
  return token;
}

async function tokenFor(expression: string, clientId: string): Promise<string | undefined> {
  const [kind, ...rest] = expression.split(":");
  const ttlSeconds = config().settings.tokens.accessTtlSeconds;
  if (kind === "systemToken") {
    const scopes = rest.join(":").split(" ").filter(Boolean);
    return (await services().accessTokens.issue({ sub: clientId, clientId, scopes, ttlSeconds })).token;
  }
  if (kind === "interaction") {
    // {{interaction:<csrf>:<authorization query>}}: what the sign-in page puts in its form.
    const [csrf, ...query] = rest;
    const params = Object.fromEntries(new URLSearchParams(query.join(":")));
    return sealInteraction(params, csrf, Math.floor(Date.now() / 1000));
  }
  if (kind === "dpopProof") {
    const [method, ...path] = rest;
    return dpopProof(method, path.join(":"));
  }
  if (kind === "browserSession") return mintBrowserSession(rest.join(":"));
  if (kind === "scimToken") return scimTokenOf(rest.join(":"));
  if (kind === "userToken") {
    const [sub, scopeList = ""] = rest;
    const scopes = scopeList.split(" ").filter(Boolean);
    return (await mintUserToken(sub, clientId, scopes, ttlSeconds)).token;
  }
  return undefined;
}

async function fill(text: string, values: Record<string, string>): Promise<string> {
  let out = text;
  for (const [whole, expression] of text.matchAll(PLACEHOLDER)) {
    const value = values[expression] ?? (await tokenFor(expression, values.clientId ?? "sample-events"));
    if (value === undefined) throw new Error(`sample event placeholder ${whole} has no value`);
    out = out.replace(whole, value);
  }
  return out;
}

export async function prepareEvent(
  event: APIGatewayProxyEventV2,
  values: Record<string, string> = {},
): Promise<APIGatewayProxyEventV2> {
  const filled = JSON.parse(await fill(JSON.stringify(event), values)) as APIGatewayProxyEventV2;
  const now = new Date();
  filled.requestContext = {
    ...filled.requestContext,
    requestId: randomUUID(),
    time: now.toUTCString(),
    timeEpoch: now.getTime(),
  };
  return filled;
}
