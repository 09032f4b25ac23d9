import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { expect } from "vitest";
import type { ApiVersion } from "../../lib/http/route";

/** The first sample event (events/) of each route key, for tests that sweep the whole route table. */
export function firstSampleOfEachRoute(): Map<string, string> {
  const byKey = new Map<string, string>();
  for (const dir of readdirSync("events", { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of readdirSync(join("events", dir.name)).sort()) {
      if (!name.endsWith(".json") || name.startsWith("svc-config")) continue;
      const file = join("events", dir.name, name);
      const event = JSON.parse(readFileSync(file, "utf8")) as APIGatewayProxyEventV2;
      if (event.routeKey && !byKey.has(event.routeKey)) byKey.set(event.routeKey, file);
    }
  }
  return byKey;
}

/** An error body in the shape of the route's version (errorResult). */
export function expectVersionShape(
  version: ApiVersion,
  status: number,
  json: Record<string, unknown>,
  body?: string,
): void {
  if (status < 400) return;
  if (version === "page") {
    // A page for the browser, never a JSON error or a stack trace.
    expect(body?.startsWith("<!doctype html>")).toBe(true);
    return;
  }
  if (version === "v3") {
    expect(json).toMatchObject({ error: expect.any(String), desc: expect.any(String) });
  } else if (version === "v2" || version === "v1" || version === "reg") {
    expect(json.errors).toBeInstanceOf(Array);
    expect((json.errors as unknown[]).length).toBeGreaterThan(0);
    for (const error of json.errors as Record<string, unknown>[]) {
      expect(Object.keys(error)).toEqual(expect.arrayContaining(version === "reg" ? ["errMsg"] : ["code", "desc"]));
    }
  } else if (version === "oauth") {
    expect(json).toMatchObject({ error: expect.any(String) });
  } else if (version === "scim") {
    expect(json).toMatchObject({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: String(status),
      detail: expect.any(String),
    });
  }
}

/**
 * Values for every {{placeholder}} of the samples that is not a token: arbitrary but
 * well-formed (a state that passes the schema), so a sweep reaches the part it tests.
 */
export const PLACEHOLDER_VALUES: Record<string, string> = Object.fromEntries(
  [
    "context",
    "code",
    "deviceId",
    "consentId",
    "keepDeviceId",
    "current",
    "email",
    "phone",
    "password",
    "newPassword",
    "username",
    "sub",
    "refreshToken",
    "clientId",
    "clientSecret",
    "clientBasic",
    "totpId",
    "providerCode",
  ].map((name) => [name, `sample-${name}`]),
);
PLACEHOLDER_VALUES.base32Secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
PLACEHOLDER_VALUES.otpCode = "123456";
PLACEHOLDER_VALUES.state = "u1.c2FtcGxlLXVzZXI.AAAAAAAAAAAAAAAAAAAAAA";
PLACEHOLDER_VALUES.qrCode = "sample-qr-code-0123456789";

/**
 * Routes the sweep cannot bring to a 2xx on the local stack, and why. Each is measured
 * by its own tests' error paths; none may be added to hide a route that merely broke.
 */
export const NO_2XX: Record<string, string> = {
  "orgs.domain-verify":
    "the claim's TXT record must be published at a DNS server the resolver setting names; test/functions/organization-domains.test.ts runs one on loopback",
  "hosted.invitation":
    "the token must be one an invitation's message carried a moment before; test/functions/hosted-invitations.test.ts follows it in a browser",
  "orgs.invitation-revoke":
    "an invitation's id is random and exists only after an invite in the same run; test/functions/organization-invitations.test.ts invites and revokes",
  "orgs.sso-put":
    "configuring reads the issuer's discovery document, and the sample's issuer is not reachable from the test; test/functions/organization-sso.test.ts configures one against a real provider on loopback",
  "orgs.sso-get":
    "the sample organization has no SSO connection (404 sso_not_configured); test/functions/organization-sso.test.ts reads one it configured",
  "orgs.sso-delete":
    "the sample organization has no SSO connection (404 sso_not_configured); test/functions/organization-sso.test.ts removes one it configured",
  "hosted.org-sso-organization":
    "it goes on (303) only to the provider of an organization with an enabled SSO connection, configured through the API at a provider reachable from the test; test/functions/hosted-org-sso.test.ts drives it",
  "hosted.federated-callback":
    "the provider's answer must carry a state that the sign-in page started in the same browser (its CSRF cookie opens it); test/functions/hosted-federation.test.ts drives it in a browser against a real provider",
  "federation.confirm":
    "the confirmation form needs the page the bind callback answered in the same browser (its CSRF cookie) and the account's password; test/functions/federation.test.ts and test/reliability/linking-and-codes.test.ts drive it",
  "hosted.consent":
    "the consent form needs the browser session that the sign-in form sets just before it; test/functions/sign-in.test.ts drives both in a browser",
  "hosted.organization":
    "the organization picker's form needs the browser session that the sign-in form sets just before it; test/functions/organization-tokens.test.ts drives it in a browser",
  "hosted.device-code":
    "the code must be one a device asked for a moment before, typed in the page's own form; test/functions/device-authorization.test.ts drives it in a browser with openid-client as the device",
  "account.confirm-password":
    "the form needs a browser session and its CSRF cookie; test/functions/account-console.test.ts drives it in chromium",
  "account.confirm-passkey":
    "the form needs a browser session and an authenticator's answer to the page's challenge; test/functions/account-console.test.ts drives it in chromium",
  "account.passkey-add":
    "the form needs a browser session and an authenticator's answer to the page's challenge; test/functions/account-console.test.ts drives it in chromium",
  "account.passkey-rename":
    "the form needs a browser session and a passkey, which only an authenticator enrols; test/functions/account-console.test.ts drives it in chromium",
  "account.passkey-delete":
    "the form needs a browser session and a passkey, which only an authenticator enrols; test/functions/account-console.test.ts drives it in chromium",
  "account.authenticator-start":
    "the form needs a browser session and its CSRF cookie; test/functions/account-console.test.ts drives it in chromium",
  "account.authenticator-confirm":
    "the form needs a browser session and the key the start just issued; test/functions/account-console.test.ts drives it in chromium",
  "account.authenticator-delete":
    "the form needs a browser session and an authenticator app set up; test/functions/account-console.test.ts drives it in chromium",
  "account.recovery-codes":
    "the form needs a browser session and its CSRF cookie; test/functions/account-console.test.ts drives it in chromium",
  "account.second-factor":
    "the form needs a browser session and a second-factor method; test/functions/account-console.test.ts drives it in chromium",
  "account.device-sign-out":
    "the form needs a browser session, its CSRF cookie and a device of the account; test/functions/account-console-devices.test.ts drives it in chromium",
  "account.devices-sign-out-others":
    "the form needs a browser session and its CSRF cookie; test/functions/account-console-devices.test.ts drives it in chromium",
  "account.app-remove":
    "the form needs a browser session, its CSRF cookie and a consent the user granted; test/functions/account-console-devices.test.ts drives it in chromium",
  "account.link-remove":
    "the form needs a browser session signed in within 10 minutes, its CSRF cookie and a linked account; test/functions/account-console-devices.test.ts drives it in chromium",
  "account.link-start":
    "the form needs a browser session signed in within 10 minutes and its CSRF cookie; test/functions/account-console-devices.test.ts drives it in chromium against a provider on loopback",
  "account.not-me":
    "the form needs a browser session and its CSRF cookie; test/functions/account-console-activity.test.ts drives it in a browser",
  "account.data-export":
    "the download needs a browser session; test/functions/account-console-activity.test.ts drives it in a browser",
  "account.data-delete":
    "the form needs a browser session signed in within 10 minutes and its CSRF cookie; test/functions/account-console-activity.test.ts drives it in a browser",
  "security.passkey-attach":
    "the body is an authenticator's answer to a challenge signed a moment before; test/functions/passkeys.test.ts drives it with a software authenticator",
  "security.passkey-rename":
    "needs a passkey, which only an authenticator's answer enrols; test/functions/passkeys.test.ts drives it",
  "security.passkey-delete":
    "needs a passkey, which only an authenticator's answer enrols; test/functions/passkeys.test.ts drives it",
  "account.names":
    "the form needs a browser session and its CSRF cookie; test/functions/account-console-profile.test.ts drives it in a browser",
  "account.email-change":
    "the form needs a recent browser session and its CSRF cookie; test/functions/account-console-profile.test.ts drives it in a browser",
  "account.email-confirm":
    "the code is one sent a moment before to the new address of a browser session's account; test/functions/account-console-profile.test.ts drives it in a browser with the outbox",
  "account.phone-change":
    "the form needs a recent browser session and its CSRF cookie; test/functions/account-console-profile.test.ts drives it in a browser",
  "account.phone-confirm":
    "the code is one sent a moment before to the new phone of a browser session's account; test/functions/account-console-profile.test.ts drives it in a browser with the outbox",
  "account.password-change":
    "the form needs a recent browser session and its CSRF cookie; test/functions/account-console-profile.test.ts drives it in a browser",
};
