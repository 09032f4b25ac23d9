import { open, seal } from "../../crypto/sealed-box";
import type { ProviderTokens } from "./provider-client";
import type { SealedTokens, StoredTokens } from "./records";

/** Assumed when a provider leaves out `expires_in` (RFC 6749 5.1 only recommends it). */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;

type Owner = Pick<StoredTokens, "sub" | "fpType" | "fpName" | "sid">;

/** Each sealed field is bound to its account, provider, external account and field. */
function context(owner: Owner, field: "access" | "refresh"): string {
  return `federated-token|${owner.sub}|${owner.fpType}|${owner.fpName}|${owner.sid}|${field}`;
}

export function sealProviderTokens(key: Buffer, owner: Owner, tokens: ProviderTokens, now: number): SealedTokens {
  return {
    accessToken: seal(key, tokens.accessToken, context(owner, "access")),
    ...(tokens.refreshToken !== undefined && {
      refreshToken: seal(key, tokens.refreshToken, context(owner, "refresh")),
    }),
    expiresOn: now + (tokens.expiresIn ?? DEFAULT_TOKEN_LIFETIME_SECONDS),
  };
}

export function openAccessToken(key: Buffer, stored: StoredTokens): string {
  return open(key, stored.accessToken, context(stored, "access"));
}

export function openRefreshToken(key: Buffer, stored: StoredTokens): string | undefined {
  return stored.refreshToken === undefined ? undefined : open(key, stored.refreshToken, context(stored, "refresh"));
}
