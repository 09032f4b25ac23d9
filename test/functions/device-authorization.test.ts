import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { decodeJwt } from "jose";
import * as oidc from "openid-client";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import { GRANT } from "../../lib/domain/clients/client";
import { USER_CODE_TRIES_PER_HOUR } from "../../lib/domain/oauth/user-codes";
import { ENTITY, keys, SCHEMA_VERSION } from "../../lib/store/keys";
import { createClient, seedAccount } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { storedItem } from "../support/stored";

/**
 * The device authorization grant (RFC 8628), as a CLI or a TV does it with openid-client:
 * the device asks, the user types the code on the hosted device page in chromium, signs in
 * and answers, and the device's polls get authorization_pending, slow_down, the tokens once,
 * access_denied or expired_token.
 */

const { issuer, browser } = await useHostedSignIn();

/** A public device client (a CLI), as an operator registers one. */
async function deviceClient(grants: string[] = [GRANT.deviceCode, GRANT.refreshToken]) {
  const registered = await createClient(["svc_api_user"], {
    public: true,
    grantTypes: grants,
    redirectUris: ["http://127.0.0.1/cb"],
  });
  const device = await oidc.discovery(new URL(issuer), registered.clientId, {}, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
  });
  return { device, clientId: registered.clientId };
}

/** One poll of the token endpoint by plain HTTP: the status and the error, as the device sees them. */
async function poll(clientId: string, deviceCode: string) {
  const response = await fetch(`${issuer}/oauth/te`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: GRANT.deviceCode, device_code: deviceCode, client_id: clientId }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

const userCodeOf = (shown: string) => shown.replace("-", "");

/** The user, in a fresh English browser: opens the link the device shows, confirms the code, signs in. */
async function typeCodeAndSignIn(link: string, login: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser().newContext({ locale: "en-US" });
  const page = await context.newPage();
  await page.goto(link);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel(/login/i).fill(login);
  await page.getByLabel(/^password$/i).fill(PASSWORD);
  await page.getByRole("button", { name: /^sign in$/i }).click();
  return { page, close: () => context.close() };
}

describe("the device authorization grant (RFC 8628)", () => {
  it("a device asks, polls pending then too fast, the user approves on the device page, and the device gets the tokens once", async () => {
    const { device, clientId } = await deviceClient();
    const account = await seedAccount({}, PASSWORD);
    const started = await oidc.initiateDeviceAuthorization(device, { scope: "openid svc_api_user" });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started).toMatchObject({
      verification_uri: `${issuer}/oauth/device`,
      verification_uri_complete: `${issuer}/oauth/device?user_code=${started.user_code}`,
      expires_in: 600,
      interval: 5,
    });
    // The complete URI as a QR code, for a device with a screen.
    const png = Buffer.from(String(started.qr_png), "base64");
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    // Only a digest of the device code's secret is kept.
    const stored = await storedItem(keys.deviceAuthorization(userCodeOf(started.user_code)));
    expect(stored).toMatchObject({ entity: "device-authorization", status: "pending", clientId });
    expect(JSON.stringify(stored)).not.toContain(started.device_code.split(".")[1]);

    expect(await poll(clientId, started.device_code)).toMatchObject({
      status: 400,
      body: { error: "authorization_pending" },
    });
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: "slow_down" } });
    // Another client cannot redeem it, nor a forged secret: both invalid_grant.
    expect((await poll("someone-else", started.device_code)).body.error).toBe("invalid_client");
    const forged = `${started.device_code.split(".")[0]}.${"A".repeat(43)}`;
    expect((await poll(clientId, forged)).body.error).toBe("invalid_grant");

    const { page, close } = await typeCodeAndSignIn(started.verification_uri_complete as string, account.sub);
    // A device always asks: the user confirms this is the device in front of them.
    await page.getByRole("button", { name: "Allow" }).click();
    await page.getByText("Done: your device is signed in.").waitFor();
    await close();
    expect(await storedItem(keys.deviceAuthorization(userCodeOf(started.user_code)))).toMatchObject({
      status: "approved",
      approval: { sub: account.sub },
    });

    const tokens = await oidc.pollDeviceAuthorizationGrant(device, started);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: account.sub, client_id: clientId, aud: "svc-api" });
    expect(tokens.claims()?.sub).toBe(account.sub);
    const user = await fetch(`${issuer}/api/v3/users/${account.sub}`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(user.status).toBe(200);
    const refreshed = await oidc.refreshTokenGrant(device, tokens.refresh_token as string);
    expect(decodeJwt(refreshed.access_token).sub).toBe(account.sub);

    await new Promise((r) => setTimeout(r, 5_000));
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("when the user denies, the device hears access_denied, and the page says the device was not signed in", async () => {
    const { device, clientId } = await deviceClient();
    const account = await seedAccount({}, PASSWORD);
    const started = await oidc.initiateDeviceAuthorization(device, { scope: "svc_api_user" });
    const { page, close } = await typeCodeAndSignIn(started.verification_uri_complete as string, account.sub);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByText("The device was not signed in.").waitFor();
    await close();
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: "access_denied" } });
  });

  it("an expired authorization is expired_token for the device and an unknown code on the page", async () => {
    const { device, clientId } = await deviceClient();
    const started = await oidc.initiateDeviceAuthorization(device, { scope: "svc_api_user" });
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.deviceAuthorization(userCodeOf(started.user_code)),
        UpdateExpression: "SET expiresAt = :past",
        ExpressionAttributeValues: { ":past": Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect(await poll(clientId, started.device_code)).toMatchObject({ status: 400, body: { error: "expired_token" } });

    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${issuer}/oauth/device`);
    await page.getByLabel("Code from the device").fill(started.user_code.toLowerCase());
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("This code is not valid or has expired");
    // The page's language (ui_locales) holds through its form, in an English browser too.
    await page.goto(`${issuer}/oauth/device?ui_locales=ru`);
    await page.getByLabel("Код с устройства").fill(started.user_code);
    await page.getByRole("button", { name: "Продолжить" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("Код неверен или устарел");
    await context.close();
  });

  it(`an address may try ${USER_CODE_TRIES_PER_HOUR} codes an hour; the next try is refused before any code is read`, async () => {
    const hour = Math.floor(Date.now() / 1000 / 3600);
    await documentClient().send(
      new PutCommand({
        TableName: config().tableName,
        Item: {
          ...keys.userCodeTries("127.0.0.1", hour),
          entity: ENTITY.userCodeTries,
          schemaVersion: SCHEMA_VERSION,
          count: USER_CODE_TRIES_PER_HOUR,
          expiresAt: (hour + 1) * 3600,
        },
      }),
    );
    const { device } = await deviceClient();
    const started = await oidc.initiateDeviceAuthorization(device, { scope: "svc_api_user" });
    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(started.verification_uri_complete as string);
    const answer = page.waitForResponse((r) => r.request().method() === "POST");
    await page.getByRole("button", { name: "Continue" }).click();
    expect((await answer).status()).toBe(429);
    await expect(page.getByRole("alert").textContent()).resolves.toContain("Too many codes tried from here");
    await context.close();
    expect(await storedItem(keys.deviceAuthorization(userCodeOf(started.user_code)))).toMatchObject({
      status: "pending",
    });
  });

  it("a client not registered for the grant is unauthorized_client, and a user code cannot enter through the authorization endpoint", async () => {
    const { device } = await deviceClient([GRANT.authorizationCode, GRANT.refreshToken]);
    await expect(oidc.initiateDeviceAuthorization(device, { scope: "svc_api_user" })).rejects.toMatchObject({
      error: "unauthorized_client",
    });
    const { device: allowed } = await deviceClient();
    const started = await oidc.initiateDeviceAuthorization(allowed, { scope: "svc_api_user" });
    // The authorization endpoint drops user_code: with no client it is the error page, not the device's sign-in.
    const direct = await fetch(`${issuer}/oauth/authorize?user_code=${started.user_code}`, { redirect: "manual" });
    expect(direct.status).toBe(400);
    expect(await direct.text()).toMatch(/not registered here|не зарегистрировано/);
  });

  it("discovery names the device authorization endpoint and the grant", async () => {
    const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.device_authorization_endpoint).toBe(`${issuer}/oauth/device_authorization`);
    expect(metadata.grant_types_supported).toContain(GRANT.deviceCode);
  });
});
