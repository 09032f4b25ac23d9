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
    qr_code: {
      type: "string",
      maxLength: 64,
      description: "urn:svc:params:oauth:grant-type:qr: the code from POST /svc/oauth/qr",
    },
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

/** POST /svc/oauth/qr form: the user permissions the QR login asks for. */
export const qrStartRequest: JsonSchema = {
  type: "object",
  properties: {
    scope: { type: "string", description: "space-separated user permissions granted to the client" },
    client_id: { type: "string" },
    client_secret: { type: "string" },
  },
};

export const qrStartResponse: JsonSchema = {
  type: "object",
  required: ["qr_code", "qr_png", "expires_in", "interval"],
  properties: {
    qr_code: { type: "string" },
    qr_png: { type: "string", description: "base64 PNG of a QR code holding qr_code" },
    expires_in: { type: "integer" },
    interval: { type: "integer", description: "seconds between polls of the token endpoint" },
  },
};

export const qrCodeParam: JsonSchema = {
  type: "object",
  required: ["qrCode"],
  properties: { qrCode: { type: "string", pattern: "^[A-Za-z0-9_-]{16,64}$" } },
};

export const qrLoginView: JsonSchema = {
  type: "object",
  required: ["client_id", "scopes", "expires_at"],
  properties: {
    client_id: { type: "string" },
    scopes: { type: "array", items: { type: "string" } },
    ip: { type: "string" },
    user_agent: { type: "string" },
    expires_at: { type: "integer" },
  },
};
