import { config } from "./config";
import { cachedClientCredentials } from "./domain/clients/credential-cache";
import type { LoginDeps } from "./domain/login/password-grant";
import { createAccountSearchStore } from "./store/account-search";
import { createAccountSecurityStore } from "./store/account-security";
import { createAccountStore } from "./store/accounts";
import { documentClient } from "./store/client";
import { createClientStore } from "./store/clients";
import { createConsentStore } from "./store/consents";
import { createDynamicClientStore } from "./store/dynamic-clients";
import { createFederationStore } from "./store/federation";
import { createGroupStore } from "./store/groups";
import { createLoginStore } from "./store/logins";
import { createPropertyStore } from "./store/properties";
import { createQrLoginStore } from "./store/qr-logins";
import { createRegistrationStore } from "./store/registrations";
import { createRightDefinitionStore } from "./store/right-definitions";
import { createRightStore } from "./store/rights";
import { createSecurityEventStore } from "./store/security-events";
import { createSecurityQuestionStore } from "./store/security-questions";
import { createSessionStore } from "./store/sessions";
import { createSigningKeyStore } from "./store/signing-keys";
import { createTotpStore } from "./store/totps";
import { createAccessTokens, issueIdToken } from "./tokens/access-token";
import { createKeyRing } from "./tokens/key-ring";

/**
 * The composition root: stores get the shared document client and table name here,
 * once per container, and everything else receives them from here.
 */
function build() {
  const deps = { client: documentClient(), tableName: config().tableName };
  const signingKeys = createSigningKeyStore(deps);
  const keyRing = createKeyRing(signingKeys);
  const clients = createClientStore(deps);
  return {
    accounts: createAccountStore(deps),
    clients,
    clientCredentials: cachedClientCredentials(clients, config().settings.clients.cacheSeconds),
    registrations: createRegistrationStore(deps),
    dynamicClients: createDynamicClientStore(deps),
    sessions: createSessionStore(deps),
    logins: createLoginStore(deps),
    qrLogins: createQrLoginStore(deps),
    accountSecurity: createAccountSecurityStore(deps),
    events: createSecurityEventStore(deps, config().settings.audit.retentionDays),
    federation: createFederationStore(deps),
    rights: createRightStore(deps),
    rightDefinitions: createRightDefinitionStore(deps),
    groups: createGroupStore(deps),
    accountSearch: createAccountSearchStore(deps),
    totps: createTotpStore(deps),
    properties: createPropertyStore(deps),
    securityQuestions: createSecurityQuestionStore(deps),
    consents: createConsentStore(deps),
    signingKeys,
    keyRing,
    accessTokens: createAccessTokens(keyRing, config().issuer),
  };
}

let built: ReturnType<typeof build> | undefined;

export function services(): ReturnType<typeof build> {
  built ??= build();
  return built;
}

export type Services = ReturnType<typeof build>;

/** What the password and refresh grants need. */
export function loginDeps(): LoginDeps {
  const { logins, sessions, events, consents, accessTokens, keyRing } = services();
  const settings = config().settings;
  return {
    logins,
    sessions,
    events,
    consents,
    accessTokens,
    idToken: (input) =>
      issueIdToken(keyRing, config().issuer, { ...input, ttlSeconds: settings.tokens.accessTtlSeconds }),
    settings,
  };
}
