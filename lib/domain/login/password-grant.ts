import type { ClientRecord } from "../clients/client";
import { OAuthError } from "../errors";
import type { Language } from "../messages/ports";
import type { SecondFactorProof } from "../security/second-factor";
import { outcomeError, signInFlow } from "../sign-in/flow";
import type { LoginDeps } from "../sign-in/login-commit";
import { passwordMethod } from "../sign-in/methods/password";
import { type UserTokenResponse, userScopes } from "../sign-in/user-tokens";

export interface PasswordGrantInput {
  username: unknown;
  password: unknown;
  scope: unknown;
  otp?: unknown;
  /** A recovery code instead of the otp. */
  recoveryCode?: unknown;
  /** A passkey's answer as the second factor. */
  passkey?: SecondFactorProof["passkey"];
  /** Asks for a sign-in code by e-mail or SMS instead of signing in. */
  otpChannel?: unknown;
  /** The language of a sign-in code's message (default: the service's). */
  language?: Language;
  newPassword?: unknown;
  /** SVC-CI-UA-ID: the device the application already knows. */
  uaId?: string;
  ip: string;
  /**
   * The addresses the guess counts against: the connection's, and the forwarded one when an
   * application that authenticated vouches for it (default: `ip`).
   */
  addresses?: string[];
  userAgent: string;
}

/**
 * grant_type=password (docs/sign-in.md): the password method, then the sign-in flow's steps
 * (lib/domain/sign-in/flow.ts) in one request, since a grant has no pages to pause between:
 * the code or the new password travel with the password. Refusals are invalid_grant with a
 * description that says what to do, except that an unknown user and a wrong password read the same.
 */
export async function passwordGrant(
  client: ClientRecord,
  input: PasswordGrantInput,
  deps: LoginDeps,
): Promise<UserTokenResponse> {
  const now = (deps.now ?? (() => Math.floor(Date.now() / 1000)))();
  if (typeof input.username !== "string" || input.username === "" || typeof input.password !== "string") {
    throw new OAuthError("invalid_request", "username and password are required");
  }
  const scopes = userScopes(client, input.scope);
  const context = {
    clientId: client.clientId,
    ip: input.ip,
    userAgent: input.userAgent,
    addresses: input.addresses,
    language: input.language,
    now,
  };
  const proved = await passwordMethod(deps).authenticate(
    { username: input.username, password: input.password },
    context,
  );
  if (proved.kind === "refused") throw new OAuthError("invalid_grant", proved.message, proved.why);
  const flow = signInFlow(deps);
  const outcome = await flow.proceed(
    proved,
    {
      proof: { otp: input.otp, recoveryCode: input.recoveryCode, passkey: input.passkey },
      otpChannel: input.otpChannel,
      newPassword: input.newPassword,
    },
    context,
  );
  if (outcome.kind !== "done") throw outcomeError(outcome);
  return flow.commitTokens(outcome, client, scopes, input, now);
}
