import * as oidc from "openid-client";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { seedAccount, userBearer } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";

/**
 * QR login on the hosted pages, in a real chromium: the desktop shows the code, and the
 * phone (an application with the user's token) confirms or refuses it over the interface.
 */

const { issuer, browser, relyingParty, startAuthorization, alertText, backAtClient } = await useHostedSignIn();

/** The desktop: a relying party's sign-in, "Sign in with your phone" chosen; answers the code shown. */
async function desktopShowsCode() {
  const { config, redirectUri } = await relyingParty();
  const started = await startAuthorization(config, redirectUri);
  const context = await browser().newContext({ locale: "en-US" });
  const page = await context.newPage();
  await page.goto(started.url.toString());
  await page.getByRole("link", { name: "Sign in with your phone" }).click();
  const code = ((await page.locator("code").textContent()) ?? "").trim();
  return { config, started, context, page, code };
}

/** The phone: the signed-in user's application decides through interface §4.16. */
async function phoneDecides(sub: string, code: string, decision: "confirm" | "refuse") {
  return fetch(`${issuer}/api/v3/auth/qr/${code}/${decision}`, {
    method: "POST",
    headers: {
      authorization: await userBearer(sub, ["svc_qr_auth"]),
      "x-forwarded-for": "198.51.100.7",
      "user-agent": "PhoneApp/1.0",
    },
  });
}

async function continueOn(page: Page) {
  await page.getByRole("button", { name: "Continue" }).click();
}

describe("QR login on the hosted pages", () => {
  it("shows a code, waits for the phone, then signs the desktop in as the user who confirmed", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, started, context, page, code } = await desktopShowsCode();
    expect(code).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await page.getByRole("img").getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    // The phone reads who asks: the hosted pages, from the desktop's browser.
    const seen = await services().qrLogins.get(code, Math.floor(Date.now() / 1000));
    expect(seen).toMatchObject({ clientId: "svc-hosted", status: "pending" });
    expect(seen?.userAgent).toMatch(/Chrome/);

    await continueOn(page);
    expect(await alertText(page)).toMatch(/Not confirmed yet/);
    expect((await phoneDecides(account.sub, code, "confirm")).status).toBe(204);
    await continueOn(page);

    const callback = await backAtClient(page);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: account.sub, amr: ["qr"] });
    expect((await services().qrLogins.get(code, Math.floor(Date.now() / 1000)))?.status).toBe("used");
    const events = await services().events.list(account.sub, 0, Date.now() + 1000, 50);
    expect(events.find((e) => e.type === "login")?.prms).toMatchObject({ method: "qr" });
    await context.close();
  });

  it("says so when the phone refuses, and no application can redeem the desktop's code", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { config, context, page, code } = await desktopShowsCode();
    // An application polling the token endpoint with the code gets nothing: it is the hosted pages'.
    const poll = await fetch(`${issuer}/oauth/te`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${config.clientMetadata().client_id}:${config.clientMetadata().client_secret}`).toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: "urn:svc:params:oauth:grant-type:qr", qr_code: code }),
    });
    expect(poll.status).toBe(400);
    expect(await poll.json()).toMatchObject({ error: "invalid_grant" });

    expect((await phoneDecides(account.sub, code, "refuse")).status).toBe(204);
    await continueOn(page);
    expect(await alertText(page)).toMatch(/refused on the phone/);
    expect((await context.cookies()).some((c) => c.name === "svc_sso")).toBe(false);
    await context.close();
  });
});
