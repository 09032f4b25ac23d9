import type { JsonSchema } from "../route";

/** Form fields of the token endpoint; grant-specific rules are checked by the grant. */
export const tokenRequest: JsonSchema = {
  type: "object",
  properties: {
    grant_type: { type: "string", description: "client_credentials" },
    scope: { type: "string", description: "space-separated permissions (SPEC 5.3)" },
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
  },
};
