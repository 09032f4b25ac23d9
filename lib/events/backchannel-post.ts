/** A client that does not answer within this is tried again, then given up. */
const TIMEOUT_MS = 5000;

/**
 * Back-Channel Logout 2.5: the logout token as a form POST; 200 (or 204) is success.
 * Redirects are not followed: the registered address is the only one trusted with the token.
 */
export async function postLogoutToken(uri: string, logoutToken: string): Promise<boolean> {
  const answer = await fetch(uri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "cache-control": "no-store" },
    body: new URLSearchParams({ logout_token: logoutToken }),
    redirect: "manual",
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  await answer.body?.cancel();
  return answer.status === 200 || answer.status === 204;
}
