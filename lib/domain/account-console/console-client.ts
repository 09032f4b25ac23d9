import type { ClientRecord } from "../clients/client";

/**
 * The account console as a client of the hosted sign-in: first-party (no consent), no grants
 * and no secret, since it never receives a code or a token; it only needs the browser
 * session the sign-in opens. Not stored: nobody can change or delete it.
 */

export const ACCOUNT_CONSOLE_CLIENT = "svc-account";

/** The parameter that marks a sealed sign-in as the console's (the authorization endpoint drops it). */
export const CONSOLE_MARK = "account_console";

export function accountConsoleClient(consoleUri: string): ClientRecord {
  return {
    clientId: ACCOUNT_CONSOLE_CLIENT,
    scopes: [],
    redirectUris: [consoleUri],
    hasRestPassword: false,
    public: true,
    grantTypes: [],
    postLogoutRedirectUris: [],
    resources: [],
    exchangeFrom: [],
    firstParty: true,
    idTokenSignedResponseAlg: "ES256",
    dpopBoundAccessTokens: false,
    trustRelayedAddress: false,
    requirePushedAuthorizationRequests: false,
    bootstrap: false,
    createdAt: 0,
    updatedAt: 0,
  };
}
