import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { BrowserContext, Page } from "playwright-core";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import type { Account } from "../../lib/domain/accounts/account";
import { HOSTED_CLIENT } from "../../lib/domain/oidc/browser-session";
import { keys } from "../../lib/store/keys";
import { seedAccount } from "./fixtures";
import { PASSWORD, useHostedSignIn } from "./hosted-sign-in";
import { storedItems } from "./stored";

/**
 * A test file's account console (docs/account.md): people signed in through the hosted
 * pages in chromium, as an application sends them, then at `<issuer>/account`.
 */
export async function useAccountConsole() {
  const hosted = await useHostedSignIn("localhost");
  const { issuer, browser, relyingParty, startAuthorization, fillSignInForm, backAtClient } = hosted;

  /**
   * A browser signed in as `account` (a new one by default) in `locale`; the console's
   * pages answer in that language.
   */
  async function signedIn(
    options: { account?: Account; locale?: "en-US" | "ru-RU" } = {},
  ): Promise<{ account: Account; context: BrowserContext; page: Page }> {
    const account = options.account ?? (await seedAccount({}, PASSWORD));
    const { config: rp, redirectUri } = await relyingParty();
    const started = await startAuthorization(rp, redirectUri);
    const signIn = await fillSignInForm(started.url, account.sub);
    await backAtClient(signIn.page);
    if (!options.locale || options.locale === "en-US") return { account, ...signIn };
    const context = await browser().newContext({ locale: options.locale });
    await context.addCookies(await signIn.context.cookies());
    await signIn.context.close();
    return { account, context, page: await context.newPage() };
  }

  /** A console page's address. */
  const at = (path: string) => `${issuer}${path.replace(/^\/svc/, "")}`;

  return { ...hosted, signedIn, ageSignIn, at };
}

/** Makes the account's browser sessions signed in `seconds` ago, as if that much time had passed. */
export async function ageSignIn(sub: string, seconds: number): Promise<void> {
  const sessions = (await storedItems(sub, keys.sessionPrefix)).filter((s) => s.clientId === HOSTED_CLIENT);
  for (const session of sessions) {
    await documentClient().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.session(sub, session.sid as string),
        UpdateExpression: "SET authTime = :at",
        ExpressionAttributeValues: { ":at": Math.floor(Date.now() / 1000) - seconds },
      }),
    );
  }
}
