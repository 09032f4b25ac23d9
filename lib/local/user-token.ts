import { randomBytes } from "node:crypto";
import { services } from "../container";
import { BROWSER_SESSION_TTL_SECONDS, browserCookieValue, HOSTED_CLIENT } from "../domain/oidc/browser-session";
import { openSession } from "../domain/sessions/open-session";

/**
 * A user access token backed by a real session, for local tools and tests that need a
 * signed-in user without going through the password grant (sample events, fixtures).
 */
export async function mintUserToken(sub: string, clientId: string, scopes: string[], ttlSeconds: number) {
  const now = Math.floor(Date.now() / 1000);
  const uaId = randomBytes(12).toString("base64url");
  const { record } = openSession({ sub, clientId, now, ttlSeconds });
  await services().sessions.open({ ...record, uaId, scopes });
  const { token } = await services().accessTokens.issue({ sub, clientId, scopes, ttlSeconds, sid: record.sid, uaId });
  return { token, sid: record.sid, uaId };
}

/** A hosted-pages browser session (the account console's sign-in): the `svc_sso` cookie's value. */
export async function mintBrowserSession(sub: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const uaId = randomBytes(12).toString("base64url");
  const { record, cookie } = openSession({
    sub,
    clientId: HOSTED_CLIENT,
    now,
    ttlSeconds: BROWSER_SESSION_TTL_SECONDS,
  });
  await services().sessions.open({ ...record, uaId, scopes: [] });
  return browserCookieValue(sub, cookie.value);
}
