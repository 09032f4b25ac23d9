import { setTimeout as sleep } from "node:timers/promises";
import { pwnedRangeCheck } from "./breached-passwords/pwned-range";
import { config } from "./config";
import { relyingParty, type ServiceSettings } from "./config/settings";
import { dataKeys } from "./crypto/data-key";
import { dnsTxtLookup } from "./dns/txt-lookup";
import { documentClient } from "./document-client";
import type { AttributeDeps } from "./domain/accounts/attributes";
import type { AccountDeletionDeps } from "./domain/accounts/deletion";
import { type CallerCheckDeps, type CallerChecks, callerChecks } from "./domain/callers/caller-checks";
import { cachedClientCredentials } from "./domain/clients/credential-cache";
import { withMetadataDocuments } from "./domain/clients/metadata-document";
import type { ClientRegistrationDeps } from "./domain/clients/registration";
import { reportHashesOverBounds } from "./domain/credentials/password-hash";
import type { FederationDeps } from "./domain/federation/federation";
import type { HookRunner } from "./domain/hooks/ports";
import type { KeyDeps } from "./domain/keys/keys";
import type { DpopDeps } from "./domain/oauth/dpop";
import { withOperatorConsole } from "./domain/operators/console-client";
import type { InvitationDeps } from "./domain/organizations/invitations";
import type { SsoSignInDeps } from "./domain/organizations/sso-sign-in";
import type { PasskeyDeps } from "./domain/passkeys/passkeys";
import type { PasswordChangeDeps } from "./domain/passwords/change-password";
import type { BreachedPasswordCheck } from "./domain/passwords/ports";
import type { PasswordResetDeps } from "./domain/passwords/reset-password";
import type { RegistrationDeps } from "./domain/registration/register";
import type { RecoveryCodeDeps } from "./domain/security/recovery-codes";
import type { SecondFactorDeps } from "./domain/security/second-factor";
import type { TotpDeps } from "./domain/security/totp-generators";
import type { LoginDeps } from "./domain/sign-in/login-commit";
import { createHookRunner, LOCAL_RETRY } from "./hooks/runner";
import { transportsFor } from "./hooks/transports";
import { log } from "./log";
import { powertoolsMetrics } from "./metrics";
import { hookRenderer } from "./notify/custom-message";
import { courierFor } from "./notify/transport";
import { createAccountDataStore } from "./store/account-data";
import { createAccountSearchStore } from "./store/account-search";
import { createAccountSecurityStore } from "./store/account-security";
import { createAccountTransferStore } from "./store/account-transfer";
import { createAccountStore } from "./store/accounts";
import { createAuthorizationCodeStore } from "./store/authorization-codes";
import { createClientStore } from "./store/clients";
import { createConsentStore } from "./store/consents";
import { createContactCodeStore } from "./store/contact-codes";
import { createDeviceAuthorizationStore } from "./store/device-authorizations";
import { createDomainDirectory } from "./store/domain-directory";
import { createDpopProofStore } from "./store/dpop-proofs";
import { createDynamicClientStore } from "./store/dynamic-clients";
import { createFederationStore } from "./store/federation";
import { createGroupStore } from "./store/groups";
import { tableAnswers } from "./store/health";
import { createIdentityEventStore } from "./store/identity-events";
import { createLoginCodeStore } from "./store/login-codes";
import { createLoginStore } from "./store/logins";
import { createOrganizationDomainStore, createOrganizationJoins } from "./store/organization-domains";
import { createInvitationStore } from "./store/organization-invitations";
import { createOrganizationRoleStore } from "./store/organization-roles";
import { createOrgSsoStore } from "./store/organization-sso";
import { createOrganizationStore } from "./store/organizations";
import { createPasskeyStore } from "./store/passkeys";
import { createPasswordResetStore } from "./store/password-resets";
import { createPropertyStore } from "./store/properties";
import { createPushedAuthorizationStore } from "./store/pushed-authorizations";
import { createQrLoginStore } from "./store/qr-logins";
import { createRecoveryCodeStore } from "./store/recovery-codes";
import { createRegistrationAdmissionStore } from "./store/registration-admissions";
import { createRegistrationStore } from "./store/registrations";
import { createResourceStore } from "./store/resources";
import { createRightDefinitionStore } from "./store/right-definitions";
import { createRightStore } from "./store/rights";
import { createScimStore } from "./store/scim";
import { createSecurityEventStore } from "./store/security-events";
import { createSecurityQuestionStore } from "./store/security-questions";
import { createSessionStore } from "./store/sessions";
import { createSigningKeyStore } from "./store/signing-keys";
import { createTotpStore } from "./store/totps";
import { createAccessTokens, issueIdToken } from "./tokens/access-token";
import { statelessNonces } from "./tokens/dpop-nonces";
import { readDpopProof } from "./tokens/dpop-proof";
import { createKeyRing } from "./tokens/key-ring";
import { createKeyRotator } from "./tokens/rotation";

/**
 * The one wiring point. Clients and stores are built on first use, once per container;
 * the domain's dependency sets are assembled per call, from the configuration of that
 * moment (local tools and tests switch it). Each is its own pure export: esbuild drops what a function never reaches, so only the
 * functions that send messages bundle SNS and SES, and only those that seal secrets
 * bundle Secrets Manager (test/infra/bundles.test.ts).
 */
function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** The stores, the signing keys and the access tokens: what every function uses. */
export const services = /* @__PURE__ */ once(() => {
  const deps = { client: documentClient(), tableName: config().tableName };
  // Every password check reads its hash through these stores, so this is wired before any.
  reportHashesOverBounds(log.warn);
  const signingKeys = createSigningKeyStore(deps);
  const keyRing = createKeyRing(signingKeys);
  const clients = createClientStore(deps);
  return {
    accounts: createAccountStore({ ...deps, indexedNames: config().settings.search.indexedAttributes }),
    clients,
    clientCredentials: cachedClientCredentials(clients, () => config().settings.clients.cacheSeconds),
    registrations: createRegistrationStore(deps),
    dynamicClients: createDynamicClientStore(deps),
    registrationAdmissions: createRegistrationAdmissionStore(deps),
    sessions: createSessionStore(deps),
    logins: createLoginStore(deps),
    qrLogins: createQrLoginStore(deps),
    accountSecurity: createAccountSecurityStore(deps),
    events: createSecurityEventStore(deps, config().settings.audit.retentionDays),
    identityEvents: createIdentityEventStore(deps, config().settings.audit.identityEventDays),
    federation: createFederationStore(deps),
    rights: createRightStore(deps),
    organizationRoles: createOrganizationRoleStore(deps),
    rightDefinitions: createRightDefinitionStore(deps),
    resources: createResourceStore(deps),
    groups: createGroupStore(deps),
    organizations: createOrganizationStore(deps),
    domainDirectory: createDomainDirectory(deps),
    orgSso: createOrgSsoStore(deps),
    accountSearch: createAccountSearchStore(deps),
    totps: createTotpStore(deps),
    passkeys: createPasskeyStore(deps),
    properties: createPropertyStore(deps),
    securityQuestions: createSecurityQuestionStore(deps),
    consents: createConsentStore(deps),
    codes: createAuthorizationCodeStore(deps),
    devices: createDeviceAuthorizationStore(deps),
    dpopProofs: createDpopProofStore(deps),
    pushedRequests: createPushedAuthorizationStore(deps),
    passwordResets: createPasswordResetStore(deps),
    contactCodes: createContactCodeStore(deps),
    recoveryCodes: createRecoveryCodeStore(deps),
    loginCodes: createLoginCodeStore(deps),
    signingKeys,
    keyRing,
    accessTokens: createAccessTokens(keyRing, () => config().issuer),
  };
});

export type Services = ReturnType<typeof services>;

/**
 * A use-case object whose every call is made on a fresh `build()`: entries hand route groups
 * their use cases at load, while tests and local tools switch the configuration between calls.
 */
export function perCall<T extends object>(build: () => T): T {
  return new Proxy({} as T, {
    get: (_target, name) => {
      const built = build();
      const member = built[name as keyof T];
      return typeof member === "function" ? member.bind(built) : member;
    },
  });
}

/**
 * The clients of the OAuth endpoints (token, sign-in pages): besides stored ones, a client_id
 * that is a URL names a client ID metadata document, when the operator allows it. Only the
 * functions that serve those endpoints bundle it.
 */
export const oauthClients = /* @__PURE__ */ once(() =>
  withMetadataDocuments(
    withOperatorConsole(services().clientCredentials, operatorConsoleUri()),
    // Loaded on the first document URL: a container that never sees one never evaluates it.
    async (url) =>
      (await import("./metadata-document-fetch")).fetchMetadataDocument(url, config().dynamodbEndpoint !== undefined),
    () => ({
      enabled: config().settings.clientRegistration.metadataDocuments,
      scopes: config().settings.clientRegistration.scopes,
      // Documents on the developer's machine: only beside DynamoDB Local, never on AWS.
      allowLoopback: config().dynamodbEndpoint !== undefined,
    }),
    (error) => log.warn("client metadata document refused", { error: (error as Error).message }),
  ),
);

/** DPoP proofs (RFC 9449) where tokens are used: no nonces asked (docs/decisions/dpop.md). */
export const resourceDpop = (): DpopDeps => ({ readProof: readDpopProof, replays: services().dpopProofs });

/** DPoP proofs at the token endpoint: nonces when the operator asks for them. */
export const tokenEndpointDpop = (): DpopDeps => ({
  ...resourceDpop(),
  ...(config().settings.tokens.dpopNonces && { nonces: statelessNonces(() => dataKeys().key("dpop-nonces")) }),
});

/** The hosted page where a device's user types its code (RFC 8628 verification_uri). */
export const deviceVerificationUri = (): string => `${config().issuer}/oauth/device`;

/** The admin console (docs/console.md): its page is its OAuth redirect URI. */
export const operatorConsoleUri = (): string => `${config().issuer}/console/`;

/** The account console's landing page (docs/account.md): where its own sign-in ends. */
export const accountConsoleUri = (): string => `${config().issuer}/account`;

/** The signing keys' use cases: the admin API and `svc-admin keys rotate` rotate alike. */
export const keyDeps = (): KeyDeps => ({
  signingKeys: createKeyRotator(services().signingKeys, config().settings.tokens.accessTtlSeconds),
  events: services().events,
});

/** Client registration (RFC 7591/7592) under the policy of this moment. */
export const clientRegistrationDeps = (): ClientRegistrationDeps => {
  const { clients, registrationAdmissions, events } = services();
  const issuer = config().issuer.replace(/\/$/, "");
  return {
    clients,
    admissions: registrationAdmissions,
    events,
    policy: config().settings.clientRegistration,
    clientUri: (clientId) => `${issuer}/oauth/clients/${encodeURIComponent(clientId)}`,
  };
};

/** What the request pipeline asks of every call before its route runs; `more`: a function's own callers (SCIM tokens). */
export const requestChecks = (more: () => Partial<CallerCheckDeps> = () => ({})): CallerChecks =>
  perCall(() => {
    const { accessTokens, keyRing, clientCredentials, sessions, logins, events, rights, domainDirectory, orgSso } =
      services();
    return callerChecks({
      rights,
      ssoEnforcement: { domains: domainDirectory, sso: orgSso },
      accessTokens,
      dpop: resourceDpop(),
      warmKeys: () => keyRing.warm(),
      clientCredentials,
      sessions,
      logins,
      events,
      log,
      ...more(),
    });
  });

/** Sends codes and notices: SMS by SNS, e-mail by SES, or the outbox file locally. */
export const courier = /* @__PURE__ */ once(() =>
  courierFor(config(), hookRenderer(hooks, log.warn), powertoolsMetrics),
);

let hookRunner: { settings: ServiceSettings["hooks"]; runner: HookRunner } | undefined;

/** The configured extension hooks (docs/hooks.md); rebuilt when the configuration changes (local tools, tests). */
export function hooks(): HookRunner {
  const settings = config().settings.hooks;
  if (hookRunner?.settings !== settings)
    hookRunner = {
      settings,
      runner: createHookRunner(settings, transportsFor(config().region), log.warn, LOCAL_RETRY, powertoolsMetrics),
    };
  return hookRunner.runner;
}

/** The breached-password lookup every new password passes, when passwordPolicy.breachedPasswords names one. */
const breachedPasswords = (): BreachedPasswordCheck | undefined => {
  const settings = config().settings.passwordPolicy.breachedPasswords;
  return settings && pwnedRangeCheck(settings, log.warn);
};

/** What the password and refresh grants need. */
export const loginDeps = (): LoginDeps => {
  const {
    logins,
    sessions,
    events,
    consents,
    accessTokens,
    keyRing,
    rights,
    organizationRoles,
    domainDirectory,
    orgSso,
  } = services();
  const settings = config().settings;
  return {
    rights,
    organizationRoles,
    ssoEnforcement: { domains: domainDirectory, sso: orgSso },
    logins,
    sessions,
    events,
    consents,
    accessTokens,
    idToken: (input) =>
      issueIdToken(keyRing, config().issuer, { ...input, ttlSeconds: settings.tokens.accessTtlSeconds }),
    settings,
    breachedPasswords: breachedPasswords(),
    hooks: hooks(),
    migration: { hooks: hooks(), accounts: services().accounts },
    metrics: powertoolsMetrics,
  };
};

/** Counts in CloudWatch metrics (EMF lines on stdout); the domain sees only its port. */
export { powertoolsMetrics as metrics };

/** TXT lookups of verified domains, at organizations.dnsResolvers. */
export const txtLookup = () => dnsTxtLookup(config().settings.organizations);

/** Verified domains' claims (docs/organizations.md#verified-domains): only the groups and jobs functions bundle them. */
export const organizationDomains = /* @__PURE__ */ once(() =>
  createOrganizationDomainStore({ client: documentClient(), tableName: config().tableName }),
);

/** SCIM connections and provisioned users (docs/scim.md): only the groups and scim functions bundle them. */
export const scimStore = /* @__PURE__ */ once(() =>
  createScimStore({ client: documentClient(), tableName: config().tableName }),
);

/** Where an organization's identity provider sends its SCIM calls. */
export const scimBaseUrl = (): string => `${config().issuer}/scim/v2`;

/** Memberships written in a new account's own commit (policy join, a first SSO sign-in, SCIM). */
export const organizationJoins = () => createOrganizationJoins(config());

/** What the registration flows need. */
export const registrationDeps = (): RegistrationDeps => {
  const { accounts, registrations, dynamicClients, sessions, events, domainDirectory } = services();
  return {
    domainJoins: { directory: domainDirectory, joins: organizationJoins() },
    accounts,
    registrations,
    dynamicClients,
    sessions,
    events,
    courier: courier(),
    settings: config().settings,
    breachedPasswords: breachedPasswords(),
    hooks: hooks(),
    metrics: powertoolsMetrics,
  };
};

/** What the attribute calls need. */
export const attributeDeps = (): AttributeDeps => ({
  accounts: services().accounts,
  sessions: services().sessions,
  contactCodes: services().contactCodes,
  courier: courier(),
  settings: config().settings,
});

/** What password changes need. */
export const passwordChangeDeps = (): PasswordChangeDeps => {
  const { logins, sessions, events } = services();
  return {
    logins,
    sessions,
    events,
    courier: courier(),
    settings: config().settings,
    log: log.warn,
    breachedPasswords: breachedPasswords(),
  };
};

/** What the forgotten-password pages need: a password change, and the reset codes. */
export const passwordResetDeps = (): PasswordResetDeps => ({
  ...passwordChangeDeps(),
  resets: services().passwordResets,
  migration: { hooks: hooks(), accounts: services().accounts },
});

/** What TOTP enrolment and checks need: the generators' secrets are sealed with the data key. */
export const totpDeps = (): TotpDeps => ({
  totps: services().totps,
  key: () => dataKeys().key("totp-secrets"),
  issuer: config().issuer,
  now: () => Math.floor(Date.now() / 1000),
});

/** What passkey ceremonies need: challenges are signed with the data key, not stored. */
export const passkeyDeps = (): PasskeyDeps => ({
  passkeys: services().passkeys,
  events: services().events,
  key: () => dataKeys().key("passkey-challenges"),
  relyingParty: relyingParty(config()),
  now: () => Math.floor(Date.now() / 1000),
});

/** What recovery codes need: the set, and the events recorded with its changes. */
export const recoveryCodeDeps = (): RecoveryCodeDeps => ({
  recoveryCodes: services().recoveryCodes,
  events: services().events,
});

/** What tells whether an account has a second-factor method; no courier, so no SNS or SES bundled. */
export const secondFactorMethodDeps = (): Pick<SecondFactorDeps, "settings" | "hasAuthenticator"> => ({
  settings: config().settings,
  hasAuthenticator: (sub) => services().accountSecurity.hasSecondFactor(sub),
});

/** Every second-factor method of a password sign-in (lib/domain/security/second-factor.ts). */
export const secondFactorDeps = (): SecondFactorDeps => {
  const { loginCodes, contactCodes } = services();
  return {
    ...secondFactorMethodDeps(),
    totp: totpDeps(),
    recovery: recoveryCodeDeps(),
    loginCodes,
    contactCodes,
    courier: courier(),
  };
};

/** What a password sign-in needs (the password grant and the hosted sign-in form). */
export const passwordLoginDeps = (): LoginDeps => ({ ...loginDeps(), secondFactor: secondFactorDeps() });

/** What binding an external account needs: bind states are signed and external tokens sealed. */
export const bindDeps = () => {
  const { clients, federation } = services();
  return {
    providers: config().settings.federation.providers,
    clients,
    federation,
    stateKey: () => dataKeys().key("federation-state"),
    tokenKey: () => dataKeys().key("federated-tokens"),
    log: (message: string, fields: Record<string, unknown>) => log.info(message, fields),
  } as const;
};

/** Seals organizations' SSO client secrets (docs/organizations.md); a subkey of the data key. */
export const ssoSecretKey = () => dataKeys().key("org-sso-secrets");

/** What signing in through an organization's own provider needs (lib/domain/organizations/sso-sign-in.ts). */
export const ssoSignInDeps = (): SsoSignInDeps => {
  const { domainDirectory, orgSso, federation, accounts, accountSearch, organizations } = services();
  const { stateKey, log } = bindDeps();
  return {
    domains: domainDirectory,
    sso: orgSso,
    joins: organizationJoins(),
    secretKey: ssoSecretKey,
    federation,
    stateKey,
    accounts,
    contacts: accountSearch,
    orgs: organizations,
    log,
  };
};

/** What the federation routes need besides a bind's: the browser session, the owner's password, stored tokens. */
export const federationDeps = (): FederationDeps => ({
  ...bindDeps(),
  sessions: services().sessions,
  logins: services().logins,
  minLifetimeSeconds: config().settings.fedToken.minLifetimeSeconds,
  sleep: (ms) => sleep(ms),
});

/** Resolves once the table answers a read (the health route). */
export const storageAnswers = (): Promise<void> =>
  tableAnswers({ client: documentClient(), tableName: config().tableName });

/** Whole accounts for `svc-admin users export` and `import`; no function bundles it. */
export const accountTransfer = /* @__PURE__ */ once(() =>
  createAccountTransferStore({
    client: documentClient(),
    tableName: config().tableName,
    indexedNames: config().settings.search.indexedAttributes,
  }),
);

/** An account's whole item collection: its owner's export and deletion (the account console, the daily job). */
export const accountData = /* @__PURE__ */ once(() =>
  createAccountDataStore({ client: documentClient(), tableName: config().tableName }),
);

/** What deleting an account needs, under the grace period of this moment (accountDeletion.graceDays). */
export const accountDeletionDeps = (): AccountDeletionDeps => ({
  data: accountData(),
  sessions: services().sessions,
  events: services().events,
  graceDays: config().settings.accountDeletion.graceDays,
});

/** The hosted page an invitation's link opens (lib/routes/hosted/invitation.ts). */
export const invitationUri = (): string => `${config().issuer}/oauth/invitation`;

/** Organization invitations' store: outside services(), so only the groups and hosted functions bundle it. */
export const invitationStore = /* @__PURE__ */ once(() =>
  createInvitationStore({ client: documentClient(), tableName: config().tableName }),
);

/** What organization invitations need: the stores, the courier, and the link's page (docs/organizations.md#invitations). */
export const invitationDeps = (): InvitationDeps => {
  const { organizations, groups, rightDefinitions, events } = services();
  return {
    orgs: organizations,
    invitations: invitationStore(),
    groups,
    rightDefinitions,
    events,
    courier: courier(),
    settings: config().settings.invitations,
    linkOf: (token) => `${invitationUri()}?token=${encodeURIComponent(token)}`,
    defaultLanguage: config().settings.defaultLanguage,
  };
};
