/**
 * Every key string of the single table comes from here (docs/architecture.md). Entities and their
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
  qrLogin: "qr-login",
  device: "device",
  loginFailures: "login-failures",
  ipFailures: "ip-failures",
  securityEvent: "security-event",
  federatedLink: "federated-link",
  uniqueFederatedAccount: "unique-federated-account",
  federatedToken: "federated-token",
  federationState: "federation-state",
  /** A right held by a subject on an object, in the subject's partition, with its tags. */
  rightGrant: "right-grant",
  /** The mirror of a right grant in the object's partition (interface §4.3 "rights on"). */
  rightHolder: "right-holder",
  rightDefinition: "right-definition",
  /** A protected resource an operator registered (RFC 8707, 9728): its scopes and who may consent. */
  resource: "resource",
  group: "group",
  /** A group's liveness in its own partition, written with its record (see keys.groupHead). */
  groupHead: "group-head",
  groupMember: "group-member",
  /** The mirror of a group member in the user's partition. */
  membership: "membership",
  /** One account under one value of an indexed name attribute (user search). */
  nameIndex: "name-index",
  /** A TOTP generator (interface §4.15) with its sealed secret and last used time step. */
  totpGenerator: "totp-generator",
  /** A TOTP secret issued for enrolment, sealed, waiting for its first code (TTL). */
  totpPending: "totp-pending",
  /** The security question (interface §4.10) with the answer's scrypt hash. */
  securityQuestion: "security-question",
  /** Wrong security answers of one account within one hour. */
  securityAnswerFailures: "security-answer-failures",
  /** The permissions a user granted one application through a login (acls). */
  consent: "consent",
  /** An authorization code (OIDC), by the digest of the code; single use, short-lived (TTL). */
  authorizationCode: "authorization-code",
  /** A device authorization (RFC 8628), by its user code; short-lived (TTL). */
  deviceAuthorization: "device-authorization",
  /** User codes typed on the device page from one address within one hour (RFC 8628 5.1). */
  userCodeTries: "user-code-tries",
  /** A pushed authorization request (RFC 9126), by its request_uri's reference; single use, short-lived (TTL). */
  pushedAuthorization: "pushed-authorization",
  /** The latest forgotten-password code of an account (TTL). */
  passwordReset: "password-reset",
  /** Forgotten-password codes sent to one account within one hour. */
  passwordResetsSent: "password-resets-sent",
  /** Contact-change codes one account was sent within one hour. */
  contactCodesSent: "contact-codes-sent",
  /** Contact-change codes sent to one e-mail or phone within one hour, by any account. */
  contactAddressCodesSent: "contact-address-codes-sent",
  /** Registration-attempt notices sent to one e-mail or phone within one hour (hosted registration). */
  registrationNoticesSent: "registration-notices-sent",
  /** When the last contact-change code went to one e-mail or phone (the cool-down). */
  contactAddressLastCode: "contact-address-last-code",
  /** A passkey (WebAuthn credential) with its public key and signature counter. */
  passkey: "passkey",
  /** A credential id belongs to one account (WebAuthn L3 §7.1 step 26): the claim names its owner. */
  uniquePasskey: "unique-passkey",
  /** A WebAuthn challenge already answered (TTL: until the challenge expires). */
  passkeyChallenge: "passkey-challenge",
  /** A DPoP proof already used (RFC 9449 11.1), by its key and jti (TTL: until it is too old anyway). */
  dpopProof: "dpop-proof",
  /** An account's recovery codes (interface §4.15a): SHA-256 digests, each removed as it is used. */
  recoveryCodes: "recovery-codes",
  /** The latest one-time sign-in code sent by e-mail or SMS as a second factor (TTL). */
  loginCode: "login-code",
  /** An operator's initial access token for client registration (RFC 7591): its digest and uses left (TTL). */
  initialAccessToken: "initial-access-token",
  /** Clients registered without an initial access token from one address within one hour. */
  clientRegistrationsFromAddress: "client-registrations-from-address",
  /** An identity event as the event stream published it, kept for the admin console (TTL). */
  identityEvent: "identity-event",
  /** A domain an organization verified (docs/organizations.md), by the domain: at most one owner. */
  domainOwner: "domain-owner",
  // Verified domains (issue 39 point 3): an organization's claim of a domain, in its partition.
  /** A domain an organization claimed, pending or verified (docs/organizations.md#verified-domains). */
  orgDomain: "org-domain",
  // ---- organization invitations (docs/organizations.md, Invitations) ----
  /** An invitation to join an organization, in the organization's partition (TTL). */
  orgInvitation: "org-invitation",
  /** The pending invitation of one address in one organization: at most one (TTL). */
  orgInvitee: "org-invitee",
  /** An invitation found by its link's token digest (TTL). */
  invitationToken: "invitation-token",
  // Single sign-on per organization (docs/organizations.md).
  /** An organization's OpenID Connect connection, in the organization's partition (client secret sealed). */
  orgSso: "org-sso",
  // SCIM provisioning per organization (docs/scim.md).
  /** An organization's SCIM connection: its token's digest, in the organization's partition. */
  scimConnection: "scim-connection",
  /** A SCIM token found by its digest: the organization it stands for. */
  scimToken: "scim-token",
  /** A user or group a provider provisioned: the attributes it sent, in the organization's partition. */
  scimRecord: "scim-record",
  /** A provisioned userName's or group displayName's claim (one per name and type in an organization). */
  scimName: "scim-name",
} as const;

export type EntityName = (typeof ENTITY)[keyof typeof ENTITY];

/** Bumped when an entity's stored shape changes, so readers can migrate lazily. */
export const SCHEMA_VERSION = 1;

export interface TableKey {
  PK: string;
  SK: string;
}

/**
 * Security events' index shards per hour (docs/scale.md "Security events across accounts",
 * docs/decisions/security-event-index.md). Only ever raised: readers query shards
 * 0..N-1, which covers every hour written with fewer.
 */
const SECURITY_EVENT_SHARDS = 8;
/** Kept identity events' shards per hour, by subject (docs/decisions/identity-event-log.md); only ever raised. */
const IDENTITY_EVENT_SHARDS = 8;
const HOUR_MS = 3_600_000;

/** A stable shard of `text` (a sub or a client id), so one party's items share a shard. */
function shardOf(text: string, shards: number): number {
  let hash = 0;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % shards;
}

const eventTime = (tsMs: number): string => String(tsMs).padStart(15, "0");

export const keys = {
  userProfile: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "PROFILE" }),
  passwordCredential: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "CRED#password" }),
  uniqueEmail: (normalizedEmail: string): TableKey => ({
    PK: `UNIQUE#email#${normalizedEmail}`,
    SK: "UNIQUE",
  }),
  uniquePhone: (digits: string): TableKey => ({ PK: `UNIQUE#phone#${digits}`, SK: "UNIQUE" }),
  /** A link of the account to an external account (interface §2.5); type and name hold no "#". */
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
  initialAccessToken: (digest: string): TableKey => ({ PK: `IAT#${digest}`, SK: "IAT" }),
  clientRegistrationsFromAddress: (address: string, hour: number): TableKey => ({
    PK: `CLIENTREGS#${address}`,
    SK: `HOUR#${hour}`,
  }),
  signingKey: (kid: string): TableKey => ({ PK: "SIGNING_KEYS", SK: `KEY#${kid}` }),
  signingKeysPartition: "SIGNING_KEYS",
  health: (): TableKey => ({ PK: "HEALTH", SK: "HEALTH" }),
  /** A registration waiting for its contacts to be confirmed (interface §4.5 `context`). */
  registration: (context: string): TableKey => ({ PK: `REG#${context}`, SK: "REG" }),
  /** A mobile application instance's client id, free or bound to an account. */
  dynamicClient: (clientId: string): TableKey => ({ PK: `DYNCLIENT#${clientId}`, SK: "DYNCLIENT" }),
  session: (sub: string, sid: string): TableKey => ({ PK: `USER#${sub}`, SK: `SESSION#${sid}` }),
  sessionPrefix: "SESSION#",
  /** A remembered device (interface §2.7), named by its ua_id. */
  device: (sub: string, uaId: string): TableKey => ({ PK: `USER#${sub}`, SK: `DEVICE#${uaId}` }),
  devicePrefix: "DEVICE#",
  /** Consecutive failed logins of one account and the wait they impose. */
  loginFailures: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "LOGIN_FAILURES" }),
  /** Failed logins of one account within one hour (the ASVS cap). */
  loginFailuresHour: (sub: string, hour: number): TableKey => ({ PK: `USER#${sub}`, SK: `LOGIN_FAILURES#${hour}` }),
  /** Consecutive failed logins of a login name that names no account (by its digest), counted like an account's. */
  loginNameFailures: (digest: string): TableKey => ({ PK: `LOGINNAME#${digest}`, SK: "LOGIN_FAILURES" }),
  loginNameFailuresHour: (digest: string, hour: number): TableKey => ({
    PK: `LOGINNAME#${digest}`,
    SK: `LOGIN_FAILURES#${hour}`,
  }),
  /** Failed logins from one address within one hour. */
  ipFailures: (ip: string, hour: number): TableKey => ({ PK: `IPFAIL#${ip}`, SK: `HOUR#${hour}` }),
  /** A security event (interface §6): sorted by time so a period is one range query. */
  securityEvent: (sub: string, tsMs: number, id: string): TableKey => ({
    PK: `USER#${sub}`,
    SK: `EVENT#${eventTime(tsMs)}#${id}`,
  }),
  eventSortAt: (tsMs: number): string => `EVENT#${eventTime(tsMs)}`,
  /**
   * A published identity event kept for operators: partitions by hour and shard of its
   * subject, sorted by time and the event's id. The prefix is what the events function's
   * IAM grant and the stream's filter name (infra/stack.ts).
   */
  identityEvent: (subject: string, tsMs: number, id: string, sequence = ""): TableKey => ({
    PK: `IDEVENTS#${Math.floor(tsMs / HOUR_MS)}#${shardOf(subject, IDENTITY_EVENT_SHARDS)}`,
    // Stream times are whole seconds: the record's sequence number orders the events within one.
    SK: `${eventTime(tsMs)}#${sequence.padStart(40, "0")}#${id}`,
  }),
  identityEventPrefix: "IDEVENTS#",
  identityEventsOf: (hour: number, shard: number): string => `IDEVENTS#${hour}#${shard}`,
  identityEventSortAt: (tsMs: number, id?: string): string => (id ? `${eventTime(tsMs)}#${id}` : eventTime(tsMs)),
  identityEventShards: IDENTITY_EVENT_SHARDS,
  identityEventShardOf: (subject: string): number => shardOf(subject, IDENTITY_EVENT_SHARDS),
  /**
   * A change to an application's registration (interface §4.17). A partition of its own, not
   * the client's: the rights reads of an application Query its partition by key range.
   */
  clientSecurityEvent: (clientId: string, tsMs: number, id: string): TableKey => ({
    PK: `CLIENT_EVENTS#${clientId}`,
    SK: `EVENT#${eventTime(tsMs)}#${id}`,
  }),
  /** A QR-code login waiting to be confirmed by a signed-in user (svc_qr_auth). */
  qrLogin: (code: string): TableKey => ({ PK: `QR#${code}`, SK: "QR" }),
  authorizationCode: (codeHash: string): TableKey => ({ PK: `AUTHCODE#${codeHash}`, SK: "AUTHCODE" }),
  deviceAuthorization: (userCode: string): TableKey => ({ PK: `DEVICEAUTH#${userCode}`, SK: "DEVICEAUTH" }),
  pushedAuthorization: (reference: string): TableKey => ({ PK: `PAR#${reference}`, SK: "PAR" }),
  userCodeTries: (address: string, hour: number): TableKey => ({ PK: `USERCODETRIES#${address}`, SK: `HOUR#${hour}` }),
  passwordReset: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "PWRESET" }),
  recoveryCodes: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "RECOVERY_CODES" }),
  loginCode: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "LOGIN_CODE" }),
  passwordResetsSent: (sub: string, hour: number): TableKey => ({ PK: `USER#${sub}`, SK: `PWRESET_SENT#${hour}` }),
  contactCodesSent: (sub: string, hour: number): TableKey => ({ PK: `USER#${sub}`, SK: `CONTACT_CODES_SENT#${hour}` }),
  /** Per address, not per account: many accounts must not flood one phone or mailbox. */
  contactAddressCodesSent: (field: "email" | "phone_number", value: string, hour: number): TableKey => ({
    PK: `CONTACT_CODES#${field === "email" ? "email" : "phone"}#${value}`,
    SK: `HOUR#${hour}`,
  }),
  /** Per address: registering with a taken e-mail or phone must not flood its owner with notices. */
  registrationNoticesSent: (field: "email" | "phone_number", value: string, hour: number): TableKey => ({
    PK: `REG_NOTICES#${field === "email" ? "email" : "phone"}#${value}`,
    SK: `HOUR#${hour}`,
  }),
  /** The address's last code, for the cool-down; apart from the hours, so it holds across their turn. */
  contactAddressLastCode: (field: "email" | "phone_number", value: string): TableKey => ({
    PK: `CONTACT_CODES#${field === "email" ? "email" : "phone"}#${value}`,
    SK: "LAST",
  }),
  /** TOTP generators of an account (interface §4.15): its second-factor methods. */
  totpPrefix: "TOTP#",
  passkeyPrefix: "PASSKEY#",
  /** Named by the credential id, which the sign-in reads with the user handle (the sub). */
  passkey: (sub: string, id: string): TableKey => ({ PK: `USER#${sub}`, SK: `PASSKEY#${id}` }),
  /** Written and removed with the passkey; credential ids are base64url, so hold no "#". */
  uniquePasskey: (id: string): TableKey => ({ PK: `UNIQUE#passkey#${id}`, SK: "UNIQUE" }),
  uniquePasskeyPrefix: "UNIQUE#passkey#",
  passkeyChallenge: (nonce: string): TableKey => ({ PK: `PASSKEYCHALLENGE#${nonce}`, SK: "TAKEN" }),
  /** A jti is the client's choice: under its key's thumbprint, one client cannot spend another's. */
  dpopProof: (jkt: string, jti: string): TableKey => ({ PK: `DPOPPROOF#${jkt}`, SK: `JTI#${jti}` }),
  /** One per (user, application), named by a digest of the client id (path-safe). */
  consent: (sub: string, id: string): TableKey => ({ PK: `USER#${sub}`, SK: `CONSENT#${id}` }),
  consentPrefix: "CONSENT#",
  securityQuestion: (sub: string): TableKey => ({ PK: `USER#${sub}`, SK: "SECQSN" }),
  securityAnswerFailures: (sub: string, hour: number): TableKey => ({
    PK: `USER#${sub}`,
    SK: `SECQSN_FAILURES#${hour}`,
  }),
  totpGenerator: (sub: string, id: string): TableKey => ({ PK: `USER#${sub}`, SK: `TOTP#${id}` }),
  /** Named by the secret's digest; the prefix must not start with totpPrefix (not a method yet). */
  totpPending: (sub: string, digest: string): TableKey => ({ PK: `USER#${sub}`, SK: `TOTPPENDING#${digest}` }),

  // Access rights (interface §2.4, 4.3). A party's partition is its own item collection, so a
  // right lives beside the account, application or group it is about. Party keys never
  // contain "#" (see lib/domain/rights/parties.ts), so the prefixes below cannot overlap.
  userPartition: (sub: string): string => `USER#${sub}`,
  clientPartition: (clientId: string): string => `CLIENT#${clientId}`,
  groupPartition: (profile: string, id: string): string => `GROUP#${profile}#${id}`,
  rightGrant: (subjectPartition: string, objectKey: string, right: string): TableKey => ({
    PK: subjectPartition,
    SK: `RIGHT#ON#${objectKey}#${right}`,
  }),
  rightGrantPrefix: "RIGHT#ON#",
  rightHolder: (objectPartition: string, subjectKey: string, right: string): TableKey => ({
    PK: objectPartition,
    SK: `RIGHT#BY#${subjectKey}#${right}`,
  }),
  rightHolderPrefix: "RIGHT#BY#",
  /** The rights one subject holds over an object, in the object's partition. */
  rightHoldersOf: (subjectKey: string): string => `RIGHT#BY#${subjectKey}#`,
  rightDefinition: (name: string): TableKey => ({ PK: "RIGHT_DEFINITIONS", SK: `RIGHT#${name}` }),
  rightDefinitionsPartition: "RIGHT_DEFINITIONS",
  /** The resources are a small catalogue: one partition, read by URI or whole. */
  resource: (uri: string): TableKey => ({ PK: "RESOURCES", SK: `RESOURCE#${uri}` }),
  resourcesPartition: "RESOURCES",

  // Groups (interface §2.3, 4.8): the groups of a profile share a partition, so listing them is
  // one consistent Query; each group's members have a partition of their own.
  group: (profile: string, id: string): TableKey => ({ PK: `GROUPS#${profile}`, SK: `GROUP#${id}` }),
  groupsOfProfile: (profile: string): string => `GROUPS#${profile}`,
  // The record's copy that lives with the members and the rights, so that one Query tells
  // them apart from "no such group". "RECORD" sorts between "MEMBER#" and "RIGHT#", so
  // either Query takes it with one key range (lib/store/partition-read.ts).
  groupHead: (profile: string, id: string): TableKey => ({ PK: `GROUP#${profile}#${id}`, SK: "RECORD" }),
  groupMember: (profile: string, id: string, sub: string): TableKey => ({
    PK: `GROUP#${profile}#${id}`,
    SK: `MEMBER#${sub}`,
  }),
  groupMemberPrefix: "MEMBER#",
  membership: (sub: string, profile: string, id: string): TableKey => ({
    PK: `USER#${sub}`,
    SK: `MEMBER_OF#${profile}#${id}`,
  }),
  /** An account's memberships, in (profile, id) order; profiles hold no "#", so one profile's are one prefix. */
  membershipPrefix: "MEMBER_OF#",
  membershipsInProfile: (profile: string): string => `MEMBER_OF#${profile}#`,
  /** The organization that verified a domain (lower-case, no "#"): home-realm discovery's one GetItem. */
  domainOwner: (domain: string): TableKey => ({ PK: `DOMAIN#${domain}`, SK: "OWNER" }),
  // Verified domains: an organization's claims sit in its group partition, before its members
  // ("DOMAIN#" sorts before "MEMBER#"), so listing them is one Query of the prefix.
  orgDomain: (orgId: string, domain: string): TableKey => ({ PK: `GROUP#org#${orgId}`, SK: `DOMAIN#${domain}` }),
  orgDomainPrefix: "DOMAIN#",
  // Organization invitations: both "INVITATION#" and "INVITEE#" sort before "MEMBER#", so
  // the member and record reads of the group's partition never meet them.
  // Both take the organization's keys.groupPartition.
  orgInvitation: (orgPartition: string, id: string): TableKey => ({ PK: orgPartition, SK: `INVITATION#${id}` }),
  orgInvitationPrefix: "INVITATION#",
  /** The address (lower-case) an organization has a pending invitation for. */
  orgInvitee: (orgPartition: string, email: string): TableKey => ({ PK: orgPartition, SK: `INVITEE#${email}` }),
  /** An invitation's link token, by its SHA-256 digest (base64url, no "#"). */
  invitationToken: (digest: string): TableKey => ({ PK: `INVITATION#${digest}`, SK: "INVITATION" }),
  // Single sign-on per organization: one connection, beside the organization's members and
  // rights, so deleting the group's partition removes it too.
  orgSso: (orgId: string): TableKey => ({ PK: `GROUP#org#${orgId}`, SK: "SSO#oidc" }),
  // SCIM items sort after the group's "RECORD" head, so member reads (MEMBER# to RECORD) never meet them.
  scimConnection: (orgId: string): TableKey => ({ PK: `GROUP#org#${orgId}`, SK: "SCIM#CONNECTION" }),
  scimToken: (digest: string): TableKey => ({ PK: `SCIMTOKEN#${digest}`, SK: "SCIMTOKEN" }),
  /** `type`: User or Group. */
  scimRecord: (orgId: string, type: string, id: string): TableKey => ({
    PK: `GROUP#org#${orgId}`,
    SK: `SCIM#${type.toUpperCase()}#${id}`,
  }),
  scimRecordPrefix: (type: string): string => `SCIM#${type.toUpperCase()}#`,
  /** By the digest of the lower-cased name: any name fits a sort key. */
  scimName: (orgId: string, type: string, nameDigest: string): TableKey => ({
    PK: `GROUP#org#${orgId}`,
    SK: `SCIM#${type.toUpperCase()}NAME#${nameDigest}`,
  }),

  // User search (interface §4.7): one item per account and value of an indexed name.
  nameIndex: (attribute: string, normalizedValue: string, sub: string): TableKey => ({
    PK: `SEARCH#${attribute}#${normalizedValue}`,
    SK: `USER#${sub}`,
  }),
  nameIndexPartition: (attribute: string, normalizedValue: string): string => `SEARCH#${attribute}#${normalizedValue}`,
} as const;

const INACTIVITY_SHARDS = 8;

/** GSI1 keys: reverse lookups that may be eventually consistent. */
export const gsi1 = {
  indexName: "GSI1",
  allClients: "CLIENTS",
  clientSort: (clientId: string): string => `CLIENT#${clientId}`,
  dynamicClientsOf: (app: string): string => `DYNCLIENTS#${app}`,
  dynamicClientSort: (clientId: string): string => `DYNCLIENT#${clientId}`,
  /**
   * Accounts that may be locked for inactivity, spread over shards so logins do not all
   * write one index partition, sorted by the time since which they count as inactive.
   * Locked and untouchable accounts leave the index, so the job reads candidates only.
   */
  inactivityShard: (shard: number): string => `INACTIVITY#${shard}`,
  inactivitySortBefore: (at: number): string => String(at).padStart(12, "0"),
  inactivityShards: INACTIVITY_SHARDS,
  /**
   * Accounts their owners asked to delete, by when (lib/store/account-data.ts): the profile
   * takes these index attributes instead of the inactivity ones while it waits, locked.
   * Few at a time, so one partition; the daily job reads the due ones.
   */
  accountDeletions: "ACCOUNT_DELETIONS",
  deletionSortBefore: (at: number): string => String(at).padStart(12, "0"),
  deletion: (sub: string, at: number): { GSI1PK: string; GSI1SK: string } => ({
    GSI1PK: "ACCOUNT_DELETIONS",
    GSI1SK: `${String(at).padStart(12, "0")}#${sub}`,
  }),
  /** The index attributes that make an account a lockable candidate from `at` on. */
  inactivity: (sub: string, at: number): { GSI1PK: string; GSI1SK: string } => ({
    GSI1PK: `INACTIVITY#${shardOf(sub, INACTIVITY_SHARDS)}`,
    GSI1SK: `${String(at).padStart(12, "0")}#${sub}`,
  }),
  /**
   * Every party's security events by hour, spread over shards by the party (sub or client
   * id), so a burst of sign-ins writes SECURITY_EVENT_SHARDS index partitions, not one.
   * Sorted by time and the event's id, like the event's own SK.
   */
  securityEvent: (sbj: string, tsMs: number, id: string): { GSI1PK: string; GSI1SK: string } => ({
    GSI1PK: `EVENTS#${Math.floor(tsMs / HOUR_MS)}#${shardOf(sbj, SECURITY_EVENT_SHARDS)}`,
    GSI1SK: `${eventTime(tsMs)}#${id}`,
  }),
  securityEventsOf: (hour: number, shard: number): string => `EVENTS#${hour}#${shard}`,
  /** Below every event of `tsMs` or later; with an id, the position of that one event. */
  securityEventSortAt: (tsMs: number, id?: string): string => (id ? `${eventTime(tsMs)}#${id}` : eventTime(tsMs)),
  securityEventShards: SECURITY_EVENT_SHARDS,
  securityEventShardOf: (sbj: string): number => shardOf(sbj, SECURITY_EVENT_SHARDS),
  hourMs: HOUR_MS,
  // Verified domains: verified claims of every organization, least recently checked first,
  // for the daily re-check (few per deployment, so one partition).
  verifiedDomains: "VERIFIED_DOMAINS",
  verifiedDomain: (orgId: string, domain: string, checkedAt: number): { GSI1PK: string; GSI1SK: string } => ({
    GSI1PK: "VERIFIED_DOMAINS",
    GSI1SK: `${String(checkedAt).padStart(12, "0")}#${orgId}#${domain}`,
  }),
} as const;

/** Stamp every item with its entity name and schema version. */
export function itemOf<T extends object>(entity: EntityName, key: TableKey, body: T) {
  return { ...key, entity, schemaVersion: SCHEMA_VERSION, ...body };
}
