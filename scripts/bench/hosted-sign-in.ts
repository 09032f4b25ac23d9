import { createHash, randomBytes } from "node:crypto";
import type { Flow } from "./throughput";

/**
 * The hosted sign-in as an application and a browser drive it, over HTTP with no browser:
 * the sign-in form's post, its 303 to the application with a code, and the application's
 * code exchange (PKCE S256, client_secret_basic). The sign-in page itself is fetched once
 * per connection before the clock starts (its interaction holds for 30 minutes), so the
 * measured unit is one form post plus one code exchange.
 */

/** A first-party web application (no consent screen); its redirect URI is never fetched. */
export const HOSTED_BENCH_CLIENT = {
  clientId: "bench-web",
  secret: "bench-web-secret-0123456789abcdef0123456789",
  scopes: ["svc_api_user"],
  redirectUris: ["https://bench.example/cb"],
  grantTypes: ["authorization_code", "refresh_token"],
  firstParty: true,
};

const FORM = "application/x-www-form-urlencoded";
const SCOPE = "openid svc_api_user";

interface Browser {
  /** The cookies the sign-in page set (the CSRF token), as a `cookie` header. */
  cookie: string;
  interaction: string;
  csrf: string;
  verifier: string;
}

function hiddenField(page: string, name: string): string {
  const found = new RegExp(`name="${name}" value="([^"]+)"`).exec(page);
  if (!found) throw new Error(`the sign-in page has no ${name} field`);
  return found[1];
}

/**
 * `accounts` are signed in in turn (logins of one account at once would conflict on its
 * profile). `observe` sees both answers of each unit (the cost part reads their headers).
 */
export function hostedSignInFlow(
  base: string,
  accounts: string[],
  password: string,
  observe?: (answer: Response) => void,
): Flow<Browser> {
  const client = HOSTED_BENCH_CLIENT;
  const [redirectUri] = client.redirectUris;
  const basic = `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString("base64")}`;
  let next = 0;
  return {
    name: "hosted sign-in: form post + code exchange (scrypt N=2^17)",
    async prepare() {
      const verifier = randomBytes(32).toString("base64url");
      const query = new URLSearchParams({
        response_type: "code",
        client_id: client.clientId,
        redirect_uri: redirectUri,
        scope: SCOPE,
        state: randomBytes(8).toString("base64url"),
        nonce: randomBytes(8).toString("base64url"),
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
      });
      const response = await fetch(`${base}/svc/oauth/authorize?${query}`, { redirect: "manual" });
      const page = await response.text();
      if (response.status !== 200) throw new Error(`the sign-in page answered ${response.status}`);
      const cookie = response.headers
        .getSetCookie()
        .map((c) => c.split(";")[0])
        .join("; ");
      return { cookie, interaction: hiddenField(page, "interaction"), csrf: hiddenField(page, "csrf"), verifier };
    },
    async run(browser, signal) {
      const username = accounts[next++ % accounts.length];
      const signIn = await fetch(`${base}/svc/oauth/signin`, {
        method: "POST",
        headers: { "content-type": FORM, cookie: browser.cookie },
        body: new URLSearchParams({ interaction: browser.interaction, csrf: browser.csrf, username, password }),
        redirect: "manual",
        signal,
      });
      await signIn.arrayBuffer();
      observe?.(signIn);
      const location = signIn.headers.get("location");
      const code = location ? new URL(location).searchParams.get("code") : null;
      if (signIn.status !== 303 || !code) throw new Error(`sign-in ${signIn.status}`);
      const exchange = await fetch(`${base}/svc/oauth/te`, {
        method: "POST",
        headers: { authorization: basic, "content-type": FORM },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirectUri,
          code_verifier: browser.verifier,
        }),
        signal,
      });
      const tokens = (await exchange.json()) as { id_token?: string };
      observe?.(exchange);
      if (exchange.status !== 200 || !tokens.id_token) throw new Error(`code exchange ${exchange.status}`);
    },
  };
}
