/**
 * Every key string of the single table comes from here (DESIGN 5). Entities and their
 * schema versions are listed too, so every item can say what it is.
 */

export const ENTITY = {
  user: "user",
  uniqueEmail: "unique-email",
  uniquePhone: "unique-phone",
  passwordCredential: "password-credential",
  client: "client",
  signingKey: "signing-key",
  registration: "registration",
  dynamicClient: "dynamic-client",
  session: "session",
  device: "device",
  loginFailures: "login-failures",
  ipFailures: "ip-failures",
  securityEvent: "security-event",
  federatedLink: "federated-link",
  uniqueFederatedAccount: "unique-federated-account",
  federatedToken: "federated-token",
  federationState: "federation-state",
} as const;

export type EntityName = (typeof ENTITY)[keyof typeof ENTITY];

/** Bumped when an entity's stored shape changes, so readers can migrate lazily. */
export const SCHEMA_VERSION = 1;

export interface TableKey {
  PK: string;
  SK: string;
}

export const keys = {
  userProfile: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "PROFILE" }),
  passwordCredential: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "CRED#password" }),
  uniqueEmail: (normalizedEmail: string): TableKey => ({
    PK: `UNIQUE#email#${normalizedEmail}`,
    SK: "UNIQUE",
  }),
  uniquePhone: (digits: string): TableKey => ({ PK: `UNIQUE#phone#${digits}`, SK: "UNIQUE" }),
  /** A link of the account to an external account (SPEC 2.5); type and name hold no "#". */
  federatedLink: (sub: string, fpType: string, fpName: string, sid: string): TableKey => ({
    PK: `USER#${sub}`,
    SK: `FA#${fpType}#${fpName}#${sid}`,
  }),
  federatedLinksPrefix: "FA#",
  /** One external account links to at most one account: the claim names its owner. */
  uniqueFederatedAccount: (fpType: string, fpName: string, sid: string): TableKey => ({
    PK: `UNIQUE#fa#${fpType}#${fpName}#${sid}`,
    SK: "UNIQUE",
  }),
  /** The provider's tokens for one linked external account, sealed (lib/crypto/sealed-box). */
  federatedToken: (sub: string, fpType: string, fpName: string, sid: string): TableKey => ({
    PK: `USER#${sub}`,
    SK: `FEDTOKEN#${fpType}#${fpName}#${sid}`,
  }),
  federatedTokensPrefix: (fpType: string, fpName: string): string => `FEDTOKEN#${fpType}#${fpName}#`,
  /** A started bind, waiting for the provider's answer; expires (TTL) and is taken once. */
  federationState: (id: string): TableKey => ({ PK: `FASTATE#${id}`, SK: "FASTATE" }),
  client: (clientId: string): TableKey => ({ PK: `CLIENT#${clientId}`, SK: "CLIENT" }),
  signingKey: (kid: string): TableKey => ({ PK: "SIGNING_KEYS", SK: `KEY#${kid}` }),
  signingKeysPartition: "SIGNING_KEYS",
  health: (): TableKey => ({ PK: "HEALTH", SK: "HEALTH" }),
  /** A registration waiting for its contacts to be confirmed (SPEC 4.5 `context`). */
  registration: (context: string): TableKey => ({ PK: `REG#${context}`, SK: "REG" }),
  /** A mobile application instance's client id, free or bound to an account. */
  dynamicClient: (clientId: string): TableKey => ({ PK: `DYNCLIENT#${clientId}`, SK: "DYNCLIENT" }),
  session: (sub: string, sid: string): TableKey => ({ PK: `USER#${sub}`, SK: `SESSION#${sid}` }),
  sessionPrefix: "SESSION#",
  /** A remembered device (SPEC 2.7), named by its ua_id. */
  device: (sub: string, uaId: string): TableKey => ({ PK: `USER#${sub}`, SK: `DEVICE#${uaId}` }),
  devicePrefix: "DEVICE#",
  userPartition: (sub: string): string => `USER#${sub}`,
  /** Consecutive failed logins of one account and the wait they impose. */
  loginFailures: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "LOGIN_FAILURES" }),
  /** Failed logins of one account within one hour (the ASVS cap). */
  loginFailuresHour: (sub: string, hour: number): TableKey => ({ PK: `USER#${sub}`, SK: `LOGIN_FAILURES#${hour}` }),
  /** Failed logins from one address within one hour. */
  ipFailures: (ip: string, hour: number): TableKey => ({ PK: `IPFAIL#${ip}`, SK: `HOUR#${hour}` }),
  /** A security event (SPEC 6): sorted by time so a period is one range query. */
  securityEvent: (sub: string, tsMs: number, id: string): TableKey => ({
    PK: `USER#${sub}`,
    SK: `EVENT#${String(tsMs).padStart(15, "0")}#${id}`,
  }),
  eventSortAt: (tsMs: number): string => `EVENT#${String(tsMs).padStart(15, "0")}`,
} as const;

/** GSI1 keys: reverse lookups that may be eventually consistent. */
export const gsi1 = {
  indexName: "GSI1",
  allClients: "CLIENTS",
  clientSort: (clientId: string): string => `CLIENT#${clientId}`,
  dynamicClientsOf: (app: string): string => `DYNCLIENTS#${app}`,
  dynamicClientSort: (clientId: string): string => `DYNCLIENT#${clientId}`,
  /**
   * Accounts that may be locked for inactivity, spread over shards so logins do not all
   * write one index partition; sorted by the time they became lockable candidates.
   */
  inactivityShard: (shard: number): string => `INACTIVITY#${shard}`,
  inactivitySort: (activeAt: number, sub: string): string => `${String(activeAt).padStart(12, "0")}#${sub}`,
  inactivityShards: 8,
} as const;

/** Stamp every item with its entity name and schema version. */
export function itemOf<T extends object>(entity: EntityName, key: TableKey, body: T) {
  return { ...key, entity, schemaVersion: SCHEMA_VERSION, ...body };
}
