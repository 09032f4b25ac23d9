import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { recoveryCodeDeps } from "../../lib/container";
import { generateRecoveryCodes } from "../../lib/domain/security/recovery-codes";
import { seedAccount } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";

/** The hosted sign-in page's second-factor step with a recovery code, in a real chromium. */

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
      await page.getByLabel(/^password$/i).fill(PASSWORD);
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
