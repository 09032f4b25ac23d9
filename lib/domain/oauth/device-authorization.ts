import { type ClientRecord, GRANT } from "../clients/client";
import { digestSecret, generateSecret } from "../credentials/secret-digest";
import { OAuthError } from "../errors";
import { qrPng } from "../login/qr-login";
import { type CodeGrantResponse, tokensForSignIn } from "../oidc/code-grant";
import { authorizationScopes } from "../oidc/scopes";
import type { ResourceRepository } from "../resources/ports";
import { audienceOf, targetOf } from "../resources/target";
import type { LoginDeps } from "../sign-in/login-commit";
import type { DeviceAuthorizationRepository } from "./ports";
import { newUserCode, shownUserCode } from "./user-codes";

/**
 * The device authorization grant (RFC 8628, docs/sign-in.md): a device without a browser
 * shows a user code; the user types it on the hosted device page, signs in and allows; the
 * device polls the token endpoint with its device code meanwhile.
 */

/** 10 minutes to type the code and sign in; 5 seconds between polls (RFC 8628 3.2 default). */
export const DEVICE_CODE_TTL_SECONDS = 600;
export const POLL_INTERVAL_SECONDS = 5;

/** The device code carries its user code, so a poll reads one item; the secret part is what proves it. */
const DEVICE_CODE = /^([B-Z]{8})\.([A-Za-z0-9_-]{43})$/;

export interface DeviceAuthorizationDeps {
  devices: DeviceAuthorizationRepository;
  resources: Pick<ResourceRepository, "get">;
  /** The management API's resource identifier (the issuer). */
  ownResource: string;
  /** The hosted page where the user types the code. */
  verificationUri: string;
}

/** RFC 8628 3.1-3.2: a client asks; the answer is what the device shows and the code it polls with. */
export async function startDeviceAuthorization(
  deps: DeviceAuthorizationDeps,
  client: ClientRecord,
  form: { scope?: unknown; resource?: unknown },
  now: number,
) {
  if (!client.grantTypes.includes(GRANT.deviceCode))
    throw new OAuthError("unauthorized_client", "the client may not use the device authorization grant");
  const uri = typeof form.resource === "string" && form.resource !== deps.ownResource ? form.resource : undefined;
  const registered = uri ? await deps.resources.get(uri) : undefined;
  const target = targetOf(client, form.resource, registered, "user", deps.ownResource);
  const scopes = authorizationScopes(client, typeof form.scope === "string" ? form.scope : undefined, target);
  const secret = generateSecret();
  // 20^8 codes: a clash is rare, and a conditional write makes it a retry, never a shared code.
  for (let attempt = 0; attempt < 3; attempt++) {
    const userCode = newUserCode();
    const created = await deps.devices.create({
      userCode,
      secretHash: digestSecret(secret),
      clientId: client.clientId,
      scopes,
      ...(audienceOf(target) && { resource: audienceOf(target) }),
      status: "pending",
      expiresAt: now + DEVICE_CODE_TTL_SECONDS,
      interval: POLL_INTERVAL_SECONDS,
    });
    if (!created) continue;
    const shown = shownUserCode(userCode);
    const complete = `${deps.verificationUri}?user_code=${shown}`;
    return {
      device_code: `${userCode}.${secret}`,
      user_code: shown,
      verification_uri: deps.verificationUri,
      verification_uri_complete: complete,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: POLL_INTERVAL_SECONDS,
      // RFC 8628 3.3.1: a device with a screen shows the complete URI as a QR code; drawn here, as for the QR login.
      qr_png: await qrPng(complete),
    };
  }
  throw new OAuthError("temporarily_unavailable", "no free user code; try again");
}

/**
 * grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 3.4-3.5). Every poll is
 * one conditional write: a poll within the interval is slow_down, and an approved
 * authorization is spent in the transaction that opens the session, so two polls racing
 * get one set of tokens.
 */
export async function deviceCodeGrant(
  client: ClientRecord,
  deviceCode: unknown,
  deps: LoginDeps & { devices: DeviceAuthorizationRepository },
): Promise<CodeGrantResponse> {
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  if (typeof deviceCode !== "string" || deviceCode === "")
    throw new OAuthError("invalid_request", "device_code is required");
  const parts = DEVICE_CODE.exec(deviceCode);
  if (!parts) throw new OAuthError("invalid_grant", "the device code is not valid");
  const [, userCode, secret] = parts;
  const polled = await deps.devices.poll(userCode, digestSecret(secret), now, POLL_INTERVAL_SECONDS);
  if (!polled) throw new OAuthError("invalid_grant", "the device code is not valid");
  if ("tooSoon" in polled) throw new OAuthError("slow_down", "poll no more often than the interval");
  const { record } = polled;
  if (record.clientId !== client.clientId) throw new OAuthError("invalid_grant", "the device code is not valid");
  if (record.status === "used") throw new OAuthError("invalid_grant", "the device code was already used");
  if (record.expiresAt <= now) throw new OAuthError("expired_token", "the device code has expired; start again");
  if (record.status === "denied") throw new OAuthError("access_denied", "the user denied the request");
  if (record.status === "pending" || !record.approval)
    throw new OAuthError("authorization_pending", "the user has not answered yet");
  const approved = { ...record.approval, scopes: record.scopes, resource: record.resource };
  return tokensForSignIn(client, approved, () => deps.devices.redeemItem(userCode), "device_code", deps);
}
