import { servedRoutes } from "../lib/compiled/token-routes";
import { config } from "../lib/config";
import { OAuthError } from "../lib/domain/errors";
import { passwordGrant } from "../lib/domain/login/password-grant";
import { QR_GRANT, qrGrant, startQrLogin } from "../lib/domain/login/qr-login";
import { refreshGrant } from "../lib/domain/login/refresh-grant";
import { authenticateClient, presentedClient } from "../lib/domain/oauth/client-authentication";
import { clientCredentialsGrant } from "../lib/domain/oauth/client-credentials";
import { verifyTotp } from "../lib/domain/security/totp-generators";
import { jsonResult } from "../lib/http/error-body";
import { createApiFunction } from "../lib/http/pipeline";
import { loginDeps, services } from "../lib/services";
import { totpDeps } from "../lib/totp-deps";

/** RFC 6749 5.1: token responses must not be cached. */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export const handler = createApiFunction("token", servedRoutes, {
  "token.issue": async (call) => {
    const form = (call.body ?? {}) as Record<string, unknown>;
    if (form.grant_type === undefined) throw new OAuthError("invalid_request", "grant_type is required");
    const client = await authenticateClient(
      services().clientCredentials,
      presentedClient(call.headers.authorization, form),
    );
    switch (form.grant_type) {
      case "client_credentials":
        return jsonResult(
          200,
          await clientCredentialsGrant(
            services().accessTokens,
            client,
            form.scope,
            config().settings.tokens.accessTtlSeconds,
          ),
          NO_STORE,
        );
      case "password":
        return jsonResult(
          200,
          await passwordGrant(
            client,
            {
              username: form.username,
              password: form.password,
              scope: form.scope,
              otp: form.otp,
              newPassword: form.new_password,
              uaId: call.headers["svc-ci-ua-id"],
              // The user's own address and browser, as the application relays them (SPEC 5.1).
              ip: call.sourceIp ?? "unknown",
              userAgent: call.userAgent ?? "unknown",
            },
            { ...loginDeps(), secondFactor: (sub, otp) => verifyTotp(totpDeps(), sub, otp) },
          ),
          NO_STORE,
        );
      case "refresh_token":
        return jsonResult(200, await refreshGrant(client, form.refresh_token, loginDeps()), NO_STORE);
      case QR_GRANT:
        return jsonResult(
          200,
          await qrGrant(
            services().qrLogins,
            client,
            form.qr_code,
            {
              uaId: call.headers["svc-ci-ua-id"],
              ip: call.sourceIp ?? "unknown",
              userAgent: call.userAgent ?? "unknown",
            },
            { ...loginDeps(), accounts: services().accounts },
          ),
          NO_STORE,
        );
      default:
        throw new OAuthError("unsupported_grant_type", `grant_type ${String(form.grant_type)} is not supported`);
    }
  },

  "token.qr-start": async (call) => {
    const form = (call.body ?? {}) as Record<string, unknown>;
    const client = await authenticateClient(
      services().clientCredentials,
      presentedClient(call.headers.authorization, form),
    );
    const started = await startQrLogin(
      services().qrLogins,
      client,
      form.scope,
      { ip: call.sourceIp, userAgent: call.userAgent },
      Math.floor(Date.now() / 1000),
    );
    return jsonResult(200, started, NO_STORE);
  },

  "token.jwks": async () =>
    jsonResult(200, await services().keyRing.jwks(), { "cache-control": "public, max-age=300" }),
});
