import { BUILT_IN_CLIENT_IDS, builtInClient, type ClientRecord } from "../clients/client";

/**
 * The account console as a client of the hosted sign-in: first-party (no consent), no grants
 * and no secret, since it never receives a code or a token; it only needs the browser
 * session the sign-in opens. Not stored: nobody can change or delete it.
 */

export const ACCOUNT_CONSOLE_CLIENT = BUILT_IN_CLIENT_IDS.account;

/** The parameter that marks a sealed sign-in as the console's (the authorization endpoint drops it). */
export const CONSOLE_MARK = "account_console";

export function accountConsoleClient(consoleUri: string): ClientRecord {
  return builtInClient(ACCOUNT_CONSOLE_CLIENT, {
    scopes: [],
    redirectUris: [consoleUri],
    grantTypes: [],
    postLogoutRedirectUris: [],
  });
}
