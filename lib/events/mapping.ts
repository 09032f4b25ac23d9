import { ORGANIZATION_PROFILE } from "../domain/groups/group";
import { ENTITY, type EntityName } from "../store/keys";
import { type CloudEvent, type EventData, type EventType, fullType } from "./cloud-event";

/**
 * One committed change of one table item, as the stream reports it, images already
 * unmarshalled (lib/events/stream-records.ts). Pure data: no AWS type reaches the mapping.
 */
export interface ChangeRecord {
  /** The stream record's eventID: unique per change, the root of every event id. */
  id: string;
  /** Its place in the shard, so a failed batch can name where to resume. */
  sequence: string;
  kind: "INSERT" | "MODIFY" | "REMOVE";
  /** When the change was committed, milliseconds since the epoch. */
  at: number;
  /** Removed by DynamoDB's TTL, not by the service. */
  expired: boolean;
  oldImage?: Item;
  newImage?: Item;
}

export type Item = Record<string, unknown>;

/** An event before its envelope; `key` tells apart two events of one type from one change. */
interface Draft {
  type: EventType;
  subject: string;
  data: EventData;
  key?: string;
}

type Mapper = (change: ChangeRecord) => Draft[];

/**
 * What each entity publishes. A full record on purpose: a new entity in keys.ts does not
 * compile until it says here what it maps to (test/events/mapping.test.ts states each one).
 * Every field of `data` is picked by name, so a secret added to an item later stays out.
 */
const MAPPERS: Record<EntityName, { types: readonly EventType[]; map?: Mapper }> = {
  [ENTITY.user]: {
    types: ["account.created", "account.updated", "account.confirmed", "account.deleted"],
    map: accountEvents,
  },
  [ENTITY.passwordCredential]: { types: ["password.changed"], map: passwordEvents },
  [ENTITY.session]: { types: ["session.started", "session.ended"], map: sessionEvents },
  [ENTITY.device]: { types: ["device.added", "device.deleted"], map: deviceEvents },
  [ENTITY.rightGrant]: { types: ["rights.changed"], map: rightEvents },
  [ENTITY.group]: { types: ["group.created", "group.updated", "group.deleted"], map: groupEvents },
  [ENTITY.groupMember]: {
    types: ["group.member_added", "group.member_removed", "organization.member_added", "organization.member_removed"],
    map: memberEvents,
  },
  [ENTITY.consent]: { types: ["consent.granted", "consent.withdrawn"], map: consentEvents },
  [ENTITY.passkey]: { types: ["passkey.added", "passkey.removed"], map: passkeyEvents },
  [ENTITY.totpGenerator]: { types: ["totp.added", "totp.removed"], map: totpEvents },
  [ENTITY.federatedLink]: { types: ["federation.linked", "federation.unlinked"], map: federationEvents },
  [ENTITY.securityEvent]: { types: ["signin.failed", "security.recorded"], map: securityEvents },
  // Mirrors and indexes of items published above: one change, one event.
  [ENTITY.uniqueEmail]: { types: [] },
  [ENTITY.uniquePhone]: { types: [] },
  [ENTITY.nameIndex]: { types: [] },
  [ENTITY.rightHolder]: { types: [] },
  [ENTITY.groupHead]: { types: [] },
  [ENTITY.membership]: { types: [] },
  [ENTITY.uniqueFederatedAccount]: { types: [] },
  // Flows in progress: what they end in (an account, a session, a password) is published.
  [ENTITY.registration]: { types: [] },
  [ENTITY.qrLogin]: { types: [] },
  [ENTITY.federationState]: { types: [] },
  [ENTITY.totpPending]: { types: [] },
  [ENTITY.passkeyChallenge]: { types: [] },
  [ENTITY.dpopProof]: { types: [] },
  [ENTITY.uniquePasskey]: { types: [] },
  [ENTITY.registrationNoticesSent]: { types: [] },
  [ENTITY.authorizationCode]: { types: [] },
  [ENTITY.deviceAuthorization]: { types: [] },
  [ENTITY.pushedAuthorization]: { types: [] },
  [ENTITY.userCodeTries]: { types: [] },
  [ENTITY.passwordReset]: { types: [] },
  [ENTITY.loginCode]: { types: [] },
  [ENTITY.initialAccessToken]: { types: [] },
  [ENTITY.clientRegistrationsFromAddress]: { types: [] },
  // Counters and limits: a refused attempt shows as its security event.
  [ENTITY.loginFailures]: { types: [] },
  [ENTITY.ipFailures]: { types: [] },
  [ENTITY.securityAnswerFailures]: { types: [] },
  [ENTITY.passwordResetsSent]: { types: [] },
  [ENTITY.contactCodesSent]: { types: [] },
  [ENTITY.contactAddressCodesSent]: { types: [] },
  [ENTITY.contactAddressLastCode]: { types: [] },
  // Secrets and service records: application changes are published through their security events.
  [ENTITY.federatedToken]: { types: [] },
  [ENTITY.recoveryCodes]: { types: [] },
  [ENTITY.securityQuestion]: { types: [] },
  [ENTITY.signingKey]: { types: [] },
  [ENTITY.client]: { types: [] },
  [ENTITY.dynamicClient]: { types: [] },
  [ENTITY.rightDefinition]: { types: [] },
  [ENTITY.resource]: { types: [] },
  // What this stream published, kept for the console: publishing it again would loop.
  [ENTITY.identityEvent]: { types: [] },
  // Organizations' directory of verified domains: domain.* events come from the organization's own domain items.
  [ENTITY.domainOwner]: { types: [] },
  // Verified domains: a claim's passage into and out of the verified state.
  [ENTITY.orgDomain]: { types: ["domain.verified", "domain.unverified"], map: domainEvents },
  // ---- organization invitations: the invitation item publishes; its guard and token item are mirrors ----
  [ENTITY.orgInvitation]: {
    types: ["invitation.sent", "invitation.accepted", "invitation.revoked"],
    map: invitationEvents,
  },
  [ENTITY.orgInvitee]: { types: [] },
  [ENTITY.invitationToken]: { types: [] },
  // An organization's SSO connection: configuration, no event (its sign-ins are login events with method org_sso).
  [ENTITY.orgSso]: { types: [] },
  // SCIM's own items: the accounts and memberships they drive publish their own events.
  [ENTITY.scimConnection]: { types: [] },
  [ENTITY.scimToken]: { types: [] },
  [ENTITY.scimRecord]: { types: [] },
  [ENTITY.scimName]: { types: [] },
};

/** The event types each entity may publish (none: it is a mirror, a flow, a counter or a secret). */
export function typesOf(entity: EntityName): readonly EventType[] {
  return MAPPERS[entity].types;
}

/** The CloudEvents one committed change publishes: none for most items. */
export function eventsOf(change: ChangeRecord, source: string): CloudEvent[] {
  const entity = (change.newImage ?? change.oldImage)?.entity;
  if (typeof entity !== "string" || !Object.hasOwn(MAPPERS, entity)) return [];
  const drafts = MAPPERS[entity as EntityName].map?.(change) ?? [];
  return drafts.map((draft) => ({
    specversion: "1.0",
    id: [change.id, draft.type, ...(draft.key ? [draft.key] : [])].join(":"),
    source,
    type: fullType(draft.type),
    time: new Date(change.at).toISOString(),
    subject: draft.subject,
    datacontenttype: "application/json",
    data: draft.data,
  }));
}

// ---- reading fields: only strings, numbers and booleans, each by name ----

function text(item: Item | undefined, name: string): string | undefined {
  const value = item?.[name];
  return typeof value === "string" ? value : undefined;
}

function num(item: Item | undefined, name: string): number | undefined {
  const value = item?.[name];
  return typeof value === "number" ? value : undefined;
}

function flag(item: Item | undefined, name: string): boolean | undefined {
  const value = item?.[name];
  return typeof value === "boolean" ? value : undefined;
}

/** A string list or string set (sets unmarshal as Set), sorted so equal sets compare equal. */
function texts(item: Item | undefined, name: string): string[] {
  const value = item?.[name];
  const list = value instanceof Set ? [...value] : Array.isArray(value) ? value : [];
  return list.filter((v): v is string => typeof v === "string").sort();
}

/** Leaves out the fields a record lacks, so `data` holds no undefined. */
function defined(fields: Record<string, EventData[string] | undefined>): EventData {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as EventData;
}

/** The account of an item in a user's partition (`USER#<sub>`). */
function userOf(item: Item): string {
  const pk = text(item, "PK") ?? "";
  return pk.startsWith("USER#") ? pk.slice("USER#".length) : pk;
}

function image(change: ChangeRecord): Item {
  return (change.newImage ?? change.oldImage) as Item;
}

function added(change: ChangeRecord, type: EventType, subject: string, data: EventData): Draft[] {
  return change.kind === "INSERT" ? [{ type, subject, data }] : [];
}

function removed(change: ChangeRecord, type: EventType, subject: string, data: EventData): Draft[] {
  return change.kind === "REMOVE" ? [{ type, subject, data }] : [];
}

/** INSERT -> first, REMOVE -> second; a MODIFY (a counter, a last-used time) publishes nothing. */
function addedOrRemoved(change: ChangeRecord, types: [EventType, EventType], subject: string, data: EventData) {
  return [...added(change, types[0], subject, data), ...removed(change, types[1], subject, data)];
}

// ---- accounts ----

const CONTACTS = ["email", "phone_number"] as const;
/** Attributes an account change reports by name (account.updated); never the pending codes. */
const ACCOUNT_FIELDS = [
  "family_name",
  "given_name",
  "middle_name",
  "email",
  "phone_number",
  "locked",
  "requiredFactor",
  "needPasswordChange",
  "methodsLocked",
  // Its owner deleted it: locked until the daily job deletes it (docs/account/data.md).
  "deletionScheduledAt",
] as const;

function contact(item: Item | undefined, name: (typeof CONTACTS)[number]) {
  const value = item?.[name] as Item | undefined;
  if (typeof value !== "object" || value === null) return undefined;
  const stored = text(value, "value");
  return stored === undefined ? undefined : { value: stored, verified: flag(value, "verified") === true };
}

function accountEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const sub = text(item, "sub") ?? userOf(item);
  if (change.kind === "INSERT") {
    const data = defined({
      sub,
      family_name: text(item, "family_name"),
      given_name: text(item, "given_name"),
      middle_name: text(item, "middle_name"),
      email: contact(item, "email"),
      phone_number: contact(item, "phone_number"),
      locked: flag(item, "locked") === true,
      createdAt: num(item, "createdAt"),
    });
    return [{ type: "account.created", subject: sub, data }];
  }
  if (change.kind === "REMOVE") return [{ type: "account.deleted", subject: sub, data: { sub } }];
  const confirmed = CONTACTS.flatMap((name) => {
    const before = contact(change.oldImage, name);
    const after = contact(change.newImage, name);
    const newlyProven = after?.verified && !(before?.verified && before.value === after.value);
    return newlyProven ? [{ name, value: after.value }] : [];
  });
  const changed = ACCOUNT_FIELDS.filter(
    (name) =>
      JSON.stringify(change.oldImage?.[name] ?? null) !== JSON.stringify(change.newImage?.[name] ?? null) &&
      !confirmed.some((c) => c.name === name),
  );
  return [
    ...confirmed.map(
      (c): Draft => ({
        type: "account.confirmed",
        subject: sub,
        data: { sub, contact: c.name, value: c.value },
        key: c.name,
      }),
    ),
    ...(changed.length > 0 ? [{ type: "account.updated" as const, subject: sub, data: { sub, changed } }] : []),
  ];
}

function passwordEvents(change: ChangeRecord): Draft[] {
  if (change.kind === "REMOVE") return [];
  const item = image(change);
  const sub = userOf(item);
  const changedAt = num(item, "changedAt");
  // The credential is only ever put to set a new password (DynamoDB streams no write that changes nothing).
  return [
    {
      type: "password.changed",
      subject: sub,
      data: defined({ sub, changedAt, initial: change.kind === "INSERT" }),
    },
  ];
}

// ---- sessions and devices ----

function sessionEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const sub = text(item, "sub") ?? userOf(item);
  const data = defined({
    sub,
    sid: text(item, "sid"),
    clientId: text(item, "clientId"),
    uaId: text(item, "uaId"),
  });
  if (change.kind === "INSERT") return [{ type: "session.started", subject: sub, data }];
  if (change.kind === "REMOVE") {
    return [{ type: "session.ended", subject: sub, data: { ...data, reason: change.expired ? "expired" : "ended" } }];
  }
  return [];
}

function deviceEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const sub = text(item, "subjectId") ?? userOf(item);
  const data = defined({ sub, uaId: text(item, "id"), name: text(item, "name") });
  return addedOrRemoved(change, ["device.added", "device.deleted"], sub, data);
}

// ---- rights and groups ----

function rightEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const subject = text(item, "subjectKey") ?? "";
  const before = texts(change.oldImage, "tags");
  const after = texts(change.newImage, "tags");
  const how = change.kind === "INSERT" ? "granted" : change.kind === "REMOVE" ? "revoked" : "tags_changed";
  // A repeated grant with the same tags only counts (rev): nothing changed.
  if (how === "tags_changed" && before.join("\n") === after.join("\n")) return [];
  const data = defined({
    subject,
    object: text(item, "objectKey"),
    right: text(item, "right"),
    change: how,
    tags: change.kind === "REMOVE" ? before : after,
  });
  return [{ type: "rights.changed", subject, data }];
}

/** A group's party key as the interface writes it (lib/domain/rights/parties.ts). */
function groupKey(profile: string, id: string): string {
  return `grps|${id}|${profile}`;
}

function groupEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const profile = text(item, "profile") ?? "";
  const groupId = text(item, "id") ?? "";
  const data = defined({ profile, groupId, name: text(item, "name") });
  const subject = groupKey(profile, groupId);
  if (change.kind === "MODIFY") {
    // Marking a group for deletion is the first step of group.deleted, which its removal publishes.
    const same = (name: string) =>
      JSON.stringify(change.oldImage?.[name] ?? null) === JSON.stringify(change.newImage?.[name] ?? null);
    if (flag(change.newImage, "deleting") || (same("name") && same("attributes"))) return [];
    return [{ type: "group.updated", subject, data }];
  }
  return addedOrRemoved(change, ["group.created", "group.deleted"], subject, data);
}

function memberEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  // The member lives in the group's partition, GROUP#<profile>#<id>; neither part holds "#".
  const [, profile = "", groupId = ""] = (text(item, "PK") ?? "").split("#");
  const sub = text(item, "sub") ?? "";
  const data = { profile, groupId, sub };
  const events = addedOrRemoved(
    change,
    ["group.member_added", "group.member_removed"],
    groupKey(profile, groupId),
    data,
  );
  if (profile !== ORGANIZATION_PROFILE) return events;
  // An organization is a group of profile org: its consumers subscribe to organization.* alone.
  const org = { orgId: groupId, sub };
  return [
    ...events,
    ...addedOrRemoved(change, ["organization.member_added", "organization.member_removed"], groupId, org),
  ];
}

// ---- organization invitations ----

/** Sent when stored, accepted when consumed, revoked when removed before its expiry; never its token digest. */
function invitationEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const orgId = text(item, "orgId") ?? "";
  const base = {
    orgId,
    invitationId: text(item, "invitationId") ?? "",
    email: text(item, "email") ?? "",
    roles: texts(item, "roles"),
  };
  if (change.kind === "INSERT") {
    const sent = defined({ ...base, invitedBy: text(item, "invitedBy"), expiresAt: num(item, "expiresAt") });
    return [{ type: "invitation.sent", subject: orgId, data: sent }];
  }
  if (change.kind === "MODIFY") {
    const sub = text(change.newImage, "acceptedBy");
    if (sub === undefined || text(change.oldImage, "acceptedBy") !== undefined) return [];
    return [{ type: "invitation.accepted", subject: orgId, data: { ...base, sub } }];
  }
  // Its TTL or an accepted one's removal is no revocation.
  if (change.expired || text(change.oldImage, "acceptedBy") !== undefined) return [];
  return [{ type: "invitation.revoked", subject: orgId, data: base }];
}

// ---- credentials and consents ----

function consentEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const sub = userOf(item);
  const clientId = text(item, "client_id") ?? "";
  if (change.kind === "REMOVE") return [{ type: "consent.withdrawn", subject: sub, data: { sub, clientId } }];
  const before = texts(change.oldImage, "scopes");
  const after = texts(change.newImage, "scopes");
  // Every login touches its consent; only new scopes are a new grant.
  if (change.kind === "MODIFY" && before.join("\n") === after.join("\n")) return [];
  return [{ type: "consent.granted", subject: sub, data: { sub, clientId, scopes: after } }];
}

function passkeyEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const sub = userOf(item);
  const data = defined({ sub, passkeyId: text(item, "id"), name: text(item, "name") });
  return addedOrRemoved(change, ["passkey.added", "passkey.removed"], sub, data);
}

function totpEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const sub = userOf(item);
  const data = defined({ sub, totpId: text(item, "id"), name: text(item, "name") });
  return addedOrRemoved(change, ["totp.added", "totp.removed"], sub, data);
}

function federationEvents(change: ChangeRecord): Draft[] {
  const item = image(change);
  const sub = text(item, "sub") ?? userOf(item);
  const data = defined({ sub, fpType: text(item, "fpType"), fpName: text(item, "fpName"), sid: text(item, "sid") });
  return addedOrRemoved(change, ["federation.linked", "federation.unlinked"], sub, data);
}

// ---- security events (interface §6) ----

function securityEvents(change: ChangeRecord): Draft[] {
  // Only a new record is an event; TTL removes old ones when their retention ends.
  if (change.kind !== "INSERT" || !change.newImage) return [];
  const item = change.newImage;
  const kind = text(item, "type") ?? "";
  const result = text(item, "result") ?? "";
  const clientEvent = text(item, "sbjType") === "its";
  const sbj = text(item, "sbj") ?? "";
  const subject = clientEvent ? `its|${sbj}` : sbj;
  const common = { clientId: text(item, "cId"), ip: text(item, "ip"), userAgent: text(item, "ua") };
  // How a sign-in was made (an organization's SSO: org_sso), and the organization an event is about.
  const prms = item.prms as Item | undefined;
  const method = text(prms, "method");
  if (kind === "login" && result !== "ok") {
    return [{ type: "signin.failed", subject, data: defined({ sub: sbj, reason: result, ...common, method }) }];
  }
  const data = defined({ kind, result, ...common, sid: text(item, "sid"), method, org: text(prms, "org") });
  return [{ type: "security.recorded", subject, data }];
}

// ---- verified domains ----

/** A claim entering the verified state is domain.verified; leaving it (a failed check, its removal), domain.unverified. */
function domainEvents(change: ChangeRecord): Draft[] {
  const before = text(change.oldImage, "state") === "verified";
  const after = text(change.newImage, "state") === "verified";
  if (before === after) return [];
  const item = image(change);
  const orgId = text(item, "orgId") ?? "";
  const data = defined({ orgId, domain: text(item, "domain") ?? "", policy: text(item, "policy") });
  return [{ type: after ? "domain.verified" : "domain.unverified", subject: orgId, data }];
}
