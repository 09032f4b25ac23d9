import { config } from "../lib/config";
import { OAuthError } from "../lib/domain/errors";
import { authenticateClient, presentedClient } from "../lib/domain/oauth/client-authentication";
import { clientCredentialsGrant } from "../lib/domain/oauth/client-credentials";
import { jsonResult } from "../lib/http/error-body";
import { createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

/** RFC 6749 5.1: token responses must not be cached. */
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export const handler = createApiFunction("token", {
  "token.issue": async (call) => {
    const form = (call.body ?? {}) as Record<string, unknown>;
    if (form.grant_type === undefined) throw new OAuthError("invalid_request", "grant_type is required");
    const client = await authenticateClient(services().clients, presentedClient(call.headers.authorization, form));
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
      default:
        throw new OAuthError("unsupported_grant_type", `grant_type ${String(form.grant_type)} is not supported`);
    }
  },

  "token.jwks": async () =>
    jsonResult(200, await services().keyRing.jwks(), { "cache-control": "public, max-age=300" }),
});
