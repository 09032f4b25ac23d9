import * as oidc from "openid-client";
import type { Page } from "playwright-core";
import { useBrowser, useCallbackServer } from "./browser";
import { createClient } from "./fixtures";
import { useIssuerGateway } from "./gateway";

/** The password every hosted sign-in test seeds its accounts with. */
export const PASSWORD = "correct horse battery staple";

/**
 * A test file's hosted sign-in: the local gateway as the issuer (or `servedIssuer`, a
 * gateway the file serves itself), a chromium, and a callback server; relying parties are
 * built with openid-client (a certified RP library).
 */
export async function useHostedSignIn(host?: "localhost", servedIssuer?: string) {
  const issuer = servedIssuer ?? (await useIssuerGateway(host)).issuer;
  const browser = useBrowser();
  const rp = useCallbackServer();

  /**
   * A relying party as integrators configure one: by discovery, with the OIDC default
   * metadata (RS256 ID tokens) unless `idTokenAlg` registers another on both sides.
   */
  async function relyingParty(
    options: {
      public?: boolean;
      firstParty?: boolean;
      scopes?: string[];
      idTokenAlg?: "ES256";
      backchannelLogoutUri?: string;
      /** As a client that registered itself (RFC 7591) under this name: third-party. */
      registeredAs?: string;
      /** Its authorization requests must be pushed (RFC 9126). */
      requirePushedAuthorizationRequests?: boolean;
    } = {},
  ) {
    const redirectUri = `${rp.url()}/cb`;
    const registered = await createClient(options.scopes ?? ["svc_api_user"], {
      redirectUris: [redirectUri],
      postLogoutRedirectUris: [`${rp.url()}/bye`],
      firstParty: options.firstParty ?? true,
      ...(options.public ? { public: true, grantTypes: ["authorization_code", "refresh_token"] } : {}),
      ...(options.idTokenAlg && { idTokenSignedResponseAlg: options.idTokenAlg }),
      ...(options.backchannelLogoutUri && { backchannelLogoutUri: options.backchannelLogoutUri }),
      ...(options.requirePushedAuthorizationRequests && { requirePushedAuthorizationRequests: true }),
      ...(options.registeredAs && {
        firstParty: false,
        registration: {
          via: "open",
          tokenEndpointAuthMethod: "client_secret_basic",
          clientName: options.registeredAs,
          keepUnusedSeconds: 86_400,
        },
      }),
    });
    const metadata = options.idTokenAlg ? { id_token_signed_response_alg: options.idTokenAlg } : {};
    const config = await oidc.discovery(
      new URL(issuer),
      registered.clientId,
      options.public ? metadata : { ...metadata, client_secret: registered.secret },
      options.public ? oidc.None() : oidc.ClientSecretBasic(registered.secret),
      { execute: [oidc.allowInsecureRequests] },
    );
    return { config, redirectUri, clientId: registered.clientId, secret: registered.secret };
  }

  async function startAuthorization(
    config: oidc.Configuration,
    redirectUri: string,
    extra: Record<string, string> = {},
  ) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid profile email svc_api_user",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
      ...extra,
    });
    return { url, verifier, state, nonce };
  }

  async function submit(page: Page) {
    await page.getByRole("button", { name: /^(sign in|войти)$/i }).click();
  }

  /** Opens the sign-in page in a fresh English browser and types the login and password, not yet sent. */
  async function typeSignInForm(url: URL, login: string, password = PASSWORD) {
    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(url.toString());
    await page.getByLabel(/login/i).fill(login);
    await page.getByLabel(/^password$/i).fill(password);
    return { context, page };
  }

  /** Opens the sign-in page in a fresh English browser and posts the login with the password. */
  async function fillSignInForm(url: URL, login: string, password = PASSWORD) {
    const opened = await typeSignInForm(url, login, password);
    await submit(opened.page);
    return opened;
  }

  /** The text of the page's alert, once the page that has one is loaded. */
  async function alertText(page: Page): Promise<string> {
    const alert = page.getByRole("alert");
    await alert.waitFor();
    return ((await alert.textContent()) ?? "").trim();
  }

  /** Waits for the browser to land back at the relying party and answers that URL. */
  async function backAtClient(page: Page): Promise<URL> {
    await page.waitForURL((url) => url.toString().startsWith(rp.url()));
    return new URL(page.url());
  }

  /**
   * Signs `login` in through chromium, waits for the consent page to ask in `asks` words,
   * allows, and redeems the code as the relying party: the tokens and the consent's note.
   */
  async function allowAndRedeem(
    config: oidc.Configuration,
    started: Awaited<ReturnType<typeof startAuthorization>>,
    login: string,
    asks: string,
  ) {
    const { context, page } = await fillSignInForm(started.url, login);
    await page.getByText(asks).waitFor();
    const note = await page.locator("p.note").innerText();
    await page.getByRole("button", { name: "Allow" }).click();
    const callback = await backAtClient(page);
    await context.close();
    return { tokens: await redeem(config, callback, started), note };
  }

  /** The relying party's redemption of the code the browser brought back, with PKCE, state and nonce checked. */
  function redeem(config: oidc.Configuration, callback: URL, started: Awaited<ReturnType<typeof startAuthorization>>) {
    return oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
  }

  /** Signs `login` in through chromium where no consent is asked, and redeems the code (with `tokenParams`, e.g. `resource`). */
  async function signInAndRedeem(
    config: oidc.Configuration,
    started: Awaited<ReturnType<typeof startAuthorization>>,
    login: string,
    tokenParams?: Record<string, string>,
  ) {
    const { context, page } = await fillSignInForm(started.url, login);
    const callback = await backAtClient(page);
    await context.close();
    const checks = { pkceCodeVerifier: started.verifier, expectedState: started.state };
    const nonce = started.url.searchParams.has("nonce") ? { expectedNonce: started.nonce } : {};
    return oidc.authorizationCodeGrant(config, callback, { ...checks, ...nonce }, tokenParams);
  }

  return {
    issuer,
    browser,
    rp,
    relyingParty,
    startAuthorization,
    submit,
    typeSignInForm,
    fillSignInForm,
    alertText,
    backAtClient,
    allowAndRedeem,
    signInAndRedeem,
    redeem,
  };
}
