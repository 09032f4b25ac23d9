// A relying party in a few dozen lines: signs a user in on svc-identity's hosted pages with
// openid-client (authorization code + PKCE), shows who signed in, and signs out.
// Run: CLIENT_ID=example-app CLIENT_SECRET=... node examples/sign-in-app.mjs  (docs/sign-in.md)
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import * as oidc from "openid-client";

const issuer = new URL(process.env.ISSUER ?? "http://127.0.0.1:3000/svc");
const app = new URL(process.env.APP_URL ?? "http://127.0.0.1:4000");
const config = await oidc.discovery(
  issuer,
  process.env.CLIENT_ID,
  { client_secret: process.env.CLIENT_SECRET },
  undefined,
  // Plain http is for the local stack only.
  issuer.protocol === "http:" ? { execute: [oidc.allowInsecureRequests] } : undefined,
);
const pending = new Map(); // browser id -> { verifier, state, nonce }
const signedIn = new Map(); // browser id -> { claims, userinfo, idToken }

const page = (res, body, headers = {}) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8", ...headers });
  res.end(`<!doctype html><title>Example app</title>${body}`);
};
const escapeHtml = (s) => String(s).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

createServer(async (req, res) => {
  const url = new URL(req.url, app);
  const browser = /(?:^|; )rp=([\w-]+)/.exec(req.headers.cookie ?? "")?.[1] ?? randomBytes(16).toString("base64url");
  const cookie = { "set-cookie": `rp=${browser}; Path=/; HttpOnly; SameSite=Lax` };
  try {
    if (url.pathname === "/login") {
      const flow = { verifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce() };
      pending.set(browser, flow);
      const target = oidc.buildAuthorizationUrl(config, {
        redirect_uri: new URL("/cb", app).href,
        scope: "openid profile email phone",
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: "S256",
        state: flow.state,
        nonce: flow.nonce,
        // ORGANIZATION=<id> signs in for that organization: the tokens then carry org_id and org_roles.
        ...(process.env.ORGANIZATION && { organization: process.env.ORGANIZATION }),
      });
      res.writeHead(302, { location: target.href, ...cookie }).end();
    } else if (url.pathname === "/cb") {
      const flow = pending.get(browser);
      pending.delete(browser);
      const tokens = await oidc.authorizationCodeGrant(config, url, {
        pkceCodeVerifier: flow?.verifier,
        expectedState: flow?.state,
        expectedNonce: flow?.nonce,
      });
      const claims = tokens.claims();
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      signedIn.set(browser, { claims, userinfo, idToken: tokens.id_token });
      res.writeHead(302, { location: "/" }).end();
    } else if (url.pathname === "/logout") {
      const idToken = signedIn.get(browser)?.idToken;
      signedIn.delete(browser);
      const target = oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: app.href });
      res.writeHead(302, { location: target.href }).end();
    } else {
      const user = signedIn.get(browser);
      page(
        res,
        user
          ? `<h1>Hello, ${escapeHtml(user.userinfo.name ?? user.claims.sub)}</h1><pre>${escapeHtml(JSON.stringify(user, null, 2))}</pre><a href="/logout">Sign out</a>`
          : `<h1>Example app</h1><a href="/login">Sign in with svc-identity</a>`,
        cookie,
      );
    }
  } catch (error) {
    res.writeHead(400, { "content-type": "text/plain" }).end(`sign-in failed: ${error.message}`);
  }
}).listen(Number(app.port), app.hostname, () => console.log(`example app on ${app.href}`));
