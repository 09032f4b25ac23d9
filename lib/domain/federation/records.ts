/** What federation keeps per account (interface §2.5). */

/** A link of a local account to an account at an external provider. */
export interface FederatedLink {
  sid: string;
  fpType: string;
  fpName: string;
  userName?: string;
}

/** A provider's tokens as stored: access and refresh token sealed (lib/crypto/sealed-box). */
export interface SealedTokens {
  accessToken: string;
  refreshToken?: string;
  /** Unix time the access token expires. */
  expiresOn: number;
}

/** One stored token record, with what guards its refresh against concurrent callers. */
export interface StoredTokens extends SealedTokens {
  sub: string;
  fpType: string;
  fpName: string;
  sid: string;
  /** Changes on every write: a refresh lease is taken on the revision that was read. */
  revision: string;
  leaseUntil?: number;
}

/** A started bind (interface §4.9), kept server-side until the provider answers. */
export interface BindState {
  id: string;
  /** Empty when the state starts a hosted sign-in: the account is what the provider will tell. */
  sub: string;
  clientId: string;
  fpType: string;
  fpName: string;
  /** The application's address the browser returns to. */
  callback: string;
  /** Our callback as sent to the provider; the code exchange must repeat it. */
  redirectUri: string;
  codeVerifier: string;
  nonce: string;
  /** Unix time after which the state is refused (TTL deletion lags). */
  expiresAt: number;
  /**
   * Set only when the state starts a hosted sign-in (docs/sign-in.md): the signed
   * authorization request, which must open with the CSRF cookie of the browser that started.
   */
  interaction?: string;
  /**
   * Set only on a link waiting for its owner's confirmation: the
   * provider has answered, and the external account is linked once the owner confirms.
   */
  answered?: { sid: string; userName?: string; tokens?: SealedTokens };
}
