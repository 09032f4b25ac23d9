import { generateKeyPairSync } from "node:crypto";
import type { Server } from "node:http";
import Provider from "oidc-provider";

/**
 * The reference for the client_credentials grant: node-oidc-provider (a certified OpenID
 * provider) on loopback, issuing ES256 JWT access tokens for one resource server to one
 * client with HTTP Basic authentication, as our grant does. Its clients live in memory.
 */

export const REFERENCE_CLIENT = { id: "reference-app", secret: "reference-app-secret-0123456789abcdef0123" };
export const REFERENCE_SCOPE = "svc_api_sys_users";
const RESOURCE = "urn:svc-api";

export function oidcReferenceServer(port: number): Server {
  const key = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: REFERENCE_CLIENT.id,
        client_secret: REFERENCE_CLIENT.secret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
        // Its default is RS256; the only key here is ES256.
        id_token_signed_response_alg: "ES256",
        scope: REFERENCE_SCOPE,
      },
    ],
    jwks: { keys: [{ ...key, kid: "reference-es256", alg: "ES256", use: "sig" }] },
    scopes: [REFERENCE_SCOPE],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: REFERENCE_SCOPE,
          audience: RESOURCE,
          accessTokenTTL: 3600,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
  });
  return provider.listen(port) as Server;
}
