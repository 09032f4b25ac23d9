import { randomBytes } from "node:crypto";
import type { AccountRepository } from "../accounts/ports";
import { type ClientRecord, GRANT } from "../clients/client";
import { ApiError, OAuthError } from "../errors";
import { qrCodes } from "../qr-codes";
import type { LoginDeps } from "../sign-in/login-commit";
import { signInWithTokens, type UserTokenResponse, userScopes } from "../sign-in/user-tokens";
import type { QrLoginRepository } from "./ports";

/**
 * QR-code login (svc_qr_auth), with the polling semantics of RFC 8628: an application
 * shows a code, a signed-in user's app confirms or refuses it, and the first
 * application polls the token endpoint until it gets the user's tokens.
 */

export const QR_GRANT = GRANT.qr;
/** How long a shown code may wait for the user. */
const QR_TTL_SECONDS = 300;
/** Seconds between polls the application should keep (RFC 8628 `interval`). */
const POLL_INTERVAL = 3;

export async function startQrLogin(
  store: QrLoginRepository,
  client: ClientRecord,
  scope: unknown,
  caller: { ip?: string; userAgent?: string },
  now: number,
) {
  return createQrLogin(store, { clientId: client.clientId, scopes: userScopes(client, scope) }, caller, now);
}

/** A pending QR login for this application (or the hosted pages), and its code as a PNG. */
export async function createQrLogin(
  store: QrLoginRepository,
  asked: { clientId: string; scopes: string[]; browserBinding?: string },
  caller: { ip?: string; userAgent?: string },
  now: number,
) {
  const code = randomBytes(24).toString("base64url");
  await store.create({
    code,
    clientId: asked.clientId,
    scopes: asked.scopes,
    ...(asked.browserBinding && { browserBinding: asked.browserBinding }),
    status: "pending",
    ip: caller.ip,
    userAgent: caller.userAgent,
    createdAt: now,
    expiresAt: now + QR_TTL_SECONDS,
  });
  return {
    qr_code: code,
    qr_png: await qrPng(code),
    expires_in: QR_TTL_SECONDS,
    interval: POLL_INTERVAL,
  };
}

/** The code as a QR image: base64 PNG. */
export async function qrPng(code: string): Promise<string> {
  const png = await (await qrCodes()).toDataURL(code, { errorCorrectionLevel: "M", margin: 2, scale: 6 });
  return png.replace(/^data:image\/png;base64,/, "");
}

function unknownCode(): ApiError {
  return new ApiError(404, "input_error", "unknown_qr_code", "no QR login waits under this code, or it expired", {
    pos: "qrCode",
  });
}

/** What the deciding user sees: who asks, from where, until when. */
export async function readQrLogin(store: QrLoginRepository, code: string, now: number) {
  const found = await store.get(code, now);
  if (found?.status !== "pending") throw unknownCode();
  return {
    client_id: found.clientId,
    scopes: found.scopes,
    ip: found.ip,
    user_agent: found.userAgent,
    expires_at: found.expiresAt,
  };
}

export async function decideQrLogin(
  store: QrLoginRepository,
  code: string,
  decision: "confirmed" | "refused",
  sub: string,
  now: number,
): Promise<void> {
  if (!(await store.decide(code, decision, sub, now))) throw unknownCode();
}

/** The token endpoint's answer to a poll (RFC 8628 3.5 error codes). */
export async function qrGrant(
  store: QrLoginRepository,
  client: ClientRecord,
  code: unknown,
  caller: { uaId?: string; ip: string; userAgent: string },
  deps: LoginDeps & { accounts: Pick<AccountRepository, "get"> },
): Promise<UserTokenResponse> {
  const now = Math.floor(Date.now() / 1000);
  if (typeof code !== "string" || code === "") throw new OAuthError("invalid_request", "qr_code is required");
  const found = await store.get(code, now);
  if (!found) throw new OAuthError("expired_token", "the QR code expired or is unknown; start again");
  if (found.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "the QR code was started by another client");
  if (found.status === "pending") throw new OAuthError("authorization_pending", "the user has not decided yet");
  if (found.status === "refused") throw new OAuthError("access_denied", "the user refused the login");
  if (found.status === "used" || !found.sub) throw new OAuthError("invalid_grant", "the QR code was already used");
  const account = await deps.accounts.get(found.sub);
  if (!account || account.locked || account.state?.name === "inactivityLock") {
    throw new OAuthError("invalid_grant", "the account is locked");
  }
  // The code is consumed in the same transaction that opens the session: tokens come once.
  return signInWithTokens(account, client, found.scopes, caller, deps, now, undefined, {
    method: "qr",
    items: [store.redeemItem(code, client.clientId, now)],
  });
}
