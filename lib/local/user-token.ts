import { randomBytes } from "node:crypto";
import { services } from "../container";
import { BROWSER_SESSION_TTL_SECONDS, browserCookieValue, HOSTED_CLIENT } from "../domain/oidc/browser-session";
import { openSession } from "../domain/sessions/open-session";

/**
 * Signed-in users without a sign-in, for local tools and tests (sample events, fixtures):
 * each is a real session of the account, stored as a sign-in would store it.
 */

async function storedSession(sub: string, clientId: string, ttlSeconds: number, scopes: string[]) {
  const now = Math.floor(Date.now() / 1000);
  const uaId = randomBytes(12).toString("base64url");
  const { record, cookie } = openSession({ sub, clientId, now, ttlSeconds });
  await services().sessions.open({ ...record, uaId, scopes });
  return { sid: record.sid, uaId, cookie };
}

/** A user access token backed by a real session. */
export async function mintUserToken(sub: string, clientId: string, scopes: string[], ttlSeconds: number) {
  const { sid, uaId } = await storedSession(sub, clientId, ttlSeconds, scopes);
  const { token } = await services().accessTokens.issue({ sub, clientId, scopes, ttlSeconds, sid, uaId });
  return { token, sid, uaId };
}

/** A hosted-pages browser session (the account console's sign-in): the `svc_sso` cookie's value. */
export async function mintBrowserSession(sub: string): Promise<string> {
  const { cookie } = await storedSession(sub, HOSTED_CLIENT, BROWSER_SESSION_TTL_SECONDS, []);
  return browserCookieValue(sub, cookie.value);
}
