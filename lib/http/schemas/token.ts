import type { JsonSchema } from "../route";

/** Form fields of the token endpoint; grant-specific rules are checked by the grant. */
export const tokenRequest: JsonSchema = {
  type: "object",
  properties: {
    grant_type: { type: "string", description: "client_credentials, password or refresh_token" },
    scope: { type: "string", description: "space-separated permissions (SPEC 5.3)" },
    username: { type: "string", maxLength: 256, description: "password grant: sub, e-mail or phone" },
    password: { type: "string", maxLength: 1024, description: "password grant" },
    otp: { type: "string", maxLength: 16, description: "password grant: second-factor code when required" },
    new_password: { type: "string", maxLength: 1024, description: "password grant: when a change is forced" },
    refresh_token: { type: "string", maxLength: 512, description: "refresh_token grant" },
    client_id: { type: "string", description: "with client_secret, instead of HTTP Basic" },
    client_secret: { type: "string" },
  },
};

export const tokenResponse: JsonSchema = {
  type: "object",
  required: ["access_token", "token_type", "expires_in", "scope"],
  properties: {
    access_token: { type: "string" },
    token_type: { const: "Bearer" },
    expires_in: { type: "integer" },
    scope: { type: "string" },
    refresh_token: { type: "string", description: "user grants: single use, rotates" },
    id_token: { type: "string", description: "password grant: JWT with ua_id (the SVC-CI-UA-ID value)" },
  },
};
