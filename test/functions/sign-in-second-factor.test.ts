import * as oidc from "openid-client";
import { afterEach, describe, expect, it } from "vitest";
import { recoveryCodeDeps } from "../../lib/container";
import { generateRecoveryCodes } from "../../lib/domain/security/recovery-codes";
import { seedAccount } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { lastCode } from "../support/outbox";

/** The hosted sign-in page's second-factor step: a recovery code, a code sent by e-mail; a real chromium. */

const { issuer, relyingParty, startAuthorization, submit, fillSignInForm, alertText, backAtClient } =
  await useHostedSignIn();

describe("sign-in with a password and a recovery code", () => {
  it("signs in once with a recovery code; the same code is refused at the next sign-in", async () => {
    const account = await seedAccount({ requiredFactor: 2 }, PASSWORD);
    const now = Math.floor(Date.now() / 1000);
    const { codes } = await generateRecoveryCodes(recoveryCodeDeps(), account.sub, { cId: "test" }, now);
    const { config, redirectUri } = await relyingParty();

    async function signInWithRecoveryCode(code: string) {
      const started = await startAuthorization(config, redirectUri);
      const { context, page } = await fillSignInForm(started.url, account.email?.value as string);
      expect(await alertText(page)).toMatch(/authenticator/);
      // The recovery code waits behind a toggle that needs no script.
      await page.getByText(/use a recovery code instead/i).click();
      const field = page.getByLabel(/^recovery code$/i);
      expect(await field.getAttribute("autocomplete")).toBe("one-time-code");
      await field.fill(code);
      await submit(page);
      return { context, page, started };
    }

    const first = await signInWithRecoveryCode(codes[0]);
    const callback = await backAtClient(first.page);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: first.started.verifier,
      expectedState: first.started.state,
      expectedNonce: first.started.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: account.sub, iss: issuer, amr: ["pwd", "otp", "mfa"] });
    await first.context.close();

    const second = await signInWithRecoveryCode(codes[0]);
    await second.page
      .getByRole("alert")
      .filter({ hasText: /not valid/ })
      .waitFor();
    expect(await alertText(second.page)).toMatch(/^The code is not valid/);
    expect(second.page.url()).not.toContain("/cb");
    await second.context.close();
  });
});

describe("sign-in with a password and a code sent by e-mail", () => {
  afterEach(() => useSettings({}));

  it("when e-mail codes are on, the code step offers a send button; the code sent signs in", async () => {
    useSettings({ secondFactor: { emailCodes: true } });
    const account = await seedAccount({ requiredFactor: 2 }, PASSWORD);
    const email = account.email?.value as string;
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri);
    const { context, page } = await fillSignInForm(started.url, email);
    expect(await alertText(page)).toMatch(/authenticator/);
    expect(await page.getByRole("button", { name: /by sms/i }).count()).toBe(0);
    await page.getByRole("button", { name: /send a code by e-mail/i }).click();
    await page
      .getByRole("status")
      .filter({ hasText: /sent a code to your e-mail/ })
      .waitFor();
    await page.getByLabel(/authenticator app, e-mail or sms/i).fill(lastCode(email));
    await submit(page);
    const callback = await backAtClient(page);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
    });
    expect(tokens.claims()).toMatchObject({ sub: account.sub, amr: ["pwd", "otp", "mfa"] });
    await context.close();
  });
});
