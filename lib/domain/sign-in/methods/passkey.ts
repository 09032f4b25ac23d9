import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { MetricsPort } from "../../metrics";
import { checkPasskey, isPasskeyRefusal, type PasskeyDeps } from "../../passkeys/passkeys";
import { type Proved, type Refused, refused, type SignInMethod } from "../method";
import { countSignIn } from "../refusals";

export interface PasskeyInput {
  /** The browser's answer (PublicKeyCredential.toJSON()), or nothing when the page sent none. */
  response?: AuthenticationResponseJSON;
  /** What the challenge was bound to: the browser's CSRF token. */
  binding: string;
}

/** RFC 8176: a key held by an authenticator, used with user verification (so, two factors). */
export const PASSKEY_AMR = ["hwk", "user", "mfa"];

/**
 * A passkey alone (discoverable credential, user verified): the account comes from the
 * user handle. Its counter and the challenge are written in the login's commit, so a
 * replayed answer fails there.
 */
export function passkeyMethod(deps: PasskeyDeps & { metrics?: MetricsPort }): SignInMethod<PasskeyInput> {
  return {
    name: "passkey",
    amr: PASSKEY_AMR,
    secondFactor: "done",
    async authenticate(input): Promise<Proved | Refused> {
      if (!input.response) return refused("passkey_missing", "no passkey answer was sent");
      try {
        const proof = await checkPasskey(deps, input.response, input.binding);
        return {
          kind: "proved",
          account: proof.account,
          method: "passkey",
          amr: PASSKEY_AMR,
          secondFactor: "done",
          items: proof.writes,
          failuresOnRecord: false,
        };
      } catch (error) {
        if (!isPasskeyRefusal(error)) throw error;
        countSignIn(deps, "passkey", error.error);
        return refused(error.error, error.desc);
      }
    },
  };
}
