/**
 * Domain errors carry what every error body needs (interface §7); `lib/http/error-body.ts`
 * turns them into the shape of the route's version. Errors under 500 are meant for the
 * caller, so their texts must never contain a secret.
 */

import type { PolicyViolation } from "./passwords/policy";
export type ErrorType = "security_error" | "input_error" | "process_error";

export interface FieldProblem {
  type?: ErrorType;
  error: string;
  /** Name of the offending field. */
  pos: string;
  desc: string;
  params?: Record<string, unknown>;
}

export interface ApiErrorDetails {
  pos?: string;
  params?: Record<string, unknown>;
  errors?: FieldProblem[];
  headers?: Record<string, string>;
  /**
   * The RFC 6750 3.1 Bearer challenge of a 401 when it is not invalid_token: none at all
   * (no error attribute) for a request without a token, or the scope a route needs.
   */
  challenge?: {
    error?:
      | "insufficient_scope"
      | "invalid_token"
      | "invalid_dpop_proof"
      | "use_dpop_nonce"
      | "insufficient_user_authentication";
    scope?: string;
    /** RFC 9470 3: how recent the sign-in must be, in seconds. */
    maxAge?: number;
    /** RFC 9449 7.1: a refusal of a DPoP presentation is a DPoP challenge. */
    scheme?: "DPoP";
  };
  /** The v2 code (interface §7.3) when it differs from `error`. */
  v2Code?: string;
  /** RFC 7644 3.12 `scimType` of a SCIM error body. */
  scimType?: string;
}

/**
 * Storage could not be reached or refused for load (a 503, not a 500). The store throws it
 * in place of its driver's errors, so callers need not know the driver.
 */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown, message = "storage unavailable") {
    super(message, { cause });
    this.name = "StorageUnavailableError";
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly error: string,
    readonly desc: string,
    readonly details: ApiErrorDetails = {},
  ) {
    super(`${error}: ${desc}`);
    this.name = "ApiError";
  }
}

/** RFC 6749 5.2 error codes, plus RFC 8628 polling codes. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "authorization_pending"
  | "slow_down"
  | "access_denied"
  | "expired_token"
  | "login_required"
  | "consent_required"
  | "interaction_required"
  | "unsupported_response_type"
  | "invalid_token"
  | "invalid_target"
  | "request_not_supported"
  | "request_uri_not_supported"
  /** RFC 9449 12.2: a DPoP proof refused, or one without the server's current nonce. */
  | "invalid_dpop_proof"
  | "use_dpop_nonce"
  /** RFC 7591 3.2.2: a registration refused for a redirect URI, or for another metadata field. */
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  /** A hook the sign-in depends on gave no usable answer (docs/hooks.md): a 503, try again. */
  | "temporarily_unavailable";

/**
 * RFC 6749 5.2: error_description holds only %x20-21 / %x23-5B / %x5D-7E. Anything else
 * (a quote, a backslash, non-ASCII) becomes "?", so a strict client still parses the answer.
 */
export function oauthDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "?");
}

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    /** For sign-in pages: which refusal this is (otp_required, password_policy, ...); never sent. */
    readonly reason?: string,
    /** The password policy rules a new password broke, for pages that word them. */
    readonly violations?: readonly PolicyViolation[],
    /** Where the endpoint's RFC names a status of its own (a closed registration: 403, too many: 429). */
    readonly httpStatus?: number,
    /** Response headers the refusal needs (RFC 9449 8: the nonce to use). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(`${code}: ${description}`);
    this.name = "OAuthError";
  }

  get status(): number {
    if (this.httpStatus !== undefined) return this.httpStatus;
    if (this.code === "temporarily_unavailable") return 503;
    return this.code === "invalid_client" || this.code === "invalid_token" ? 401 : 400;
  }
}

/** A synchronous hook of a sign-in or token issue failed: fail closed, in the grant's own shape. */
export function signInHookFailed(): OAuthError {
  return new OAuthError("temporarily_unavailable", "a sign-in check could not be completed; try again", "hook_failed");
}

export const problems = {
  wrongValues: (list: FieldProblem[]) =>
    new ApiError(400, "input_error", "wrong_values", "the request has invalid values", {
      errors: list.map((p) => ({ type: "input_error", ...p })),
      v2Code: "validation_error",
    }),

  wrongOtpCode: () =>
    new ApiError(
      400,
      "process_error",
      "wrong_otp_code",
      "the code does not match an issued secret and the current time",
      {
        v2Code: "wrong_otp_code",
      },
    ),

  unknownTotp: () =>
    new ApiError(404, "process_error", "unknown_totp", "no TOTP generator has this id", { v2Code: "not_found" }),

  wrongPasskey: (desc: string) =>
    new ApiError(400, "process_error", "wrong_passkey", desc, { v2Code: "wrong_passkey" }),

  unknownPasskey: () =>
    new ApiError(404, "process_error", "unknown_passkey", "the account has no passkey with this id", {
      v2Code: "not_found",
    }),

  wrongSecurityAnswer: (desc: string) =>
    new ApiError(400, "process_error", "wrong_security_answer", desc, { v2Code: "wrong_security_answer" }),

  noSecurityQuestion: () =>
    new ApiError(404, "process_error", "no_security_question", "no security question is set", {
      v2Code: "not_found",
    }),

  tooManyAttempts: (desc: string) =>
    new ApiError(429, "security_error", "too_many_attempts", desc, { v2Code: "too_many_attempts" }),

  unknownConsent: () =>
    new ApiError(404, "process_error", "unknown_consent", "the account granted no application under this id", {
      v2Code: "not_found",
    }),

  wrongValue: (pos: string, desc: string) =>
    new ApiError(400, "input_error", "wrong_value", desc, { pos, v2Code: "validation_error" }),

  badAccessToken: (desc: string, challenge?: ApiErrorDetails["challenge"]) =>
    new ApiError(401, "security_error", "bad_access_token", desc, {
      v2Code: "access_denied",
      ...(challenge && { challenge }),
    }),

  invalidCredential: (desc: string) =>
    new ApiError(401, "security_error", "invalid_credential", desc, { v2Code: "access_denied" }),

  unknownUser: (userId: string) =>
    new ApiError(404, "process_error", "unknown_user", "no account has this identifier", {
      params: { userId },
      v2Code: "user_not_found",
    }),

  notFound: (path: string) =>
    new ApiError(404, "input_error", "not_found", `no route for ${path}`, { v2Code: "not_found" }),

  methodNotAllowed: (method: string, allowed: string[]) =>
    new ApiError(405, "input_error", "method_not_allowed", `${method} is not allowed here`, {
      params: { allowed },
      headers: { allow: allowed.join(", ") },
      v2Code: "method_not_allowed",
    }),

  contactUseViolation: (pos: string, desc: string) =>
    new ApiError(400, "input_error", "contact_use_violation", desc, { pos, v2Code: "validation_error" }),

  unknownProvider: (fpType: string, fpName: string) =>
    new ApiError(400, "process_error", "unknown_provider", "no external provider of this type and name is configured", {
      params: { fpType, fpName },
    }),

  federatedAccountTaken: () =>
    new ApiError(409, "process_error", "already_linked", "this external account is linked to another account"),

  unknownLink: () =>
    new ApiError(404, "process_error", "unknown_link", "the account has no link to this external account"),

  unknownFederatedToken: () =>
    new ApiError(404, "process_error", "no_token", "no valid stored token of this provider for the account"),

  providerUnavailable: (desc: string) =>
    new ApiError(502, "process_error", "provider_unavailable", desc, { v2Code: "provider_unavailable" }),

  serviceUnavailable: () =>
    new ApiError(503, "process_error", "service_unavailable", "storage is not answering, try again", {
      v2Code: "service_unavailable",
    }),
};
