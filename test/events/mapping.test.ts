import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVENT_TYPE_PREFIX, EVENT_TYPES, type EventType } from "../../lib/events/cloud-event";
import { type ChangeRecord, eventsOf, type Item, typesOf } from "../../lib/events/mapping";
import { eventSchema } from "../../lib/events/schemas";
import { ENTITY, type EntityName, keys } from "../../lib/store/keys";

const SOURCE = "http://127.0.0.1:3000/svc";

/**
 * What every entity of keys.ts publishes, stated here once more: a new entity fails this
 * test until someone decides (and writes down) whether its changes are events.
 */
const PUBLISHES: Record<EntityName, EventType[]> = {
  user: ["account.created", "account.updated", "account.confirmed", "account.deleted"],
  "password-credential": ["password.changed"],
  session: ["session.started", "session.ended"],
  device: ["device.added", "device.deleted"],
  "right-grant": ["rights.changed"],
  group: ["group.created", "group.updated", "group.deleted"],
  "group-member": [
    "group.member_added",
    "group.member_removed",
    "organization.member_added",
    "organization.member_removed",
  ],
  consent: ["consent.granted", "consent.withdrawn"],
  passkey: ["passkey.added", "passkey.removed"],
  "totp-generator": ["totp.added", "totp.removed"],
  "federated-link": ["federation.linked", "federation.unlinked"],
  "security-event": ["signin.failed", "security.recorded"],
  // Mirrors and indexes: their item's own change is the event.
  "unique-email": [],
  "unique-phone": [],
  "name-index": [],
  "right-holder": [],
  "group-head": [],
  membership: [],
  "domain-owner": [],
  "org-sso": [],
  "scim-connection": [],
  "scim-token": [],
  "scim-record": [],
  "scim-name": [],
  "unique-federated-account": [],
  // Flows in progress, counters, secrets and service records.
  registration: [],
  "qr-login": [],
  "federation-state": [],
  "totp-pending": [],
  "passkey-challenge": [],
  "dpop-proof": [],
  "unique-passkey": [],
  "registration-notices-sent": [],
  "authorization-code": [],
  "password-reset": [],
  "login-code": [],
  "initial-access-token": [],
  "client-registrations-from-address": [],
  "login-failures": [],
  "ip-failures": [],
  "security-answer-failures": [],
  "password-resets-sent": [],
  "contact-codes-sent": [],
  "contact-address-codes-sent": [],
  "contact-address-last-code": [],
  "federated-token": [],
  "recovery-codes": [],
  "security-question": [],
  "signing-key": [],
  client: [],
  "dynamic-client": [],
  "right-definition": [],
  resource: [],
  "device-authorization": [],
  "pushed-authorization": [],
  "user-code-tries": [],
  "identity-event": [],
  // Verified domains: a claim entering or leaving the verified state.
  "org-domain": ["domain.verified", "domain.unverified"],
  // ---- organization invitations ----
  "org-invitation": ["invitation.sent", "invitation.accepted", "invitation.revoked"],
  "org-invitee": [],
  "invitation-token": [],
};

/** One realistic item of each publishing entity, keyed and stamped as the store writes it. */
const SAMPLES: Partial<Record<EntityName, Item>> = {
  user: {
    ...keys.userProfile("anna"),
    sub: "anna",
    given_name: "Anna",
    email: { value: "anna@example.com", verified: false },
    locked: false,
    createdAt: 1_700_000_000,
    updatedAt: 1_700_000_000,
  },
  "password-credential": { ...keys.passwordCredential("anna"), alg: "scrypt", changedAt: 1_700_000_000 },
  session: { ...keys.session("anna", "s1"), sid: "s1", sub: "anna", clientId: "app", uaId: "ua1" },
  device: { ...keys.device("anna", "ua1"), id: "ua1", subjectId: "anna", name: "Firefox on Linux" },
  "right-grant": {
    ...keys.rightGrant("USER#anna", "grps|g1|org", "read"),
    subjectKey: "anna",
    objectKey: "grps|g1|org",
    right: "read",
    tags: new Set(["a"]),
  },
  group: { ...keys.group("org", "g1"), id: "g1", profile: "org", name: "Group", attributes: {} },
  "group-member": { ...keys.groupMember("org", "g1", "anna"), sub: "anna", addedAt: 1 },
  "org-invitation": {
    ...keys.orgInvitation(keys.groupPartition("org", "acme"), "inv1"),
    invitationId: "inv1",
    orgId: "acme",
    email: "anna@example.com",
    roles: ["SYS_MON"],
    language: "en",
    createdAt: 1,
    expiresAt: 604_801,
    tokenDigest: "digest-of-the-link-token",
  },
  consent: { ...keys.consent("anna", "c1"), client_id: "app", scopes: new Set(["openid"]), updated: 1 },
  passkey: { ...keys.passkey("anna", "pk1"), id: "pk1", name: "Phone", transports: [] },
  "totp-generator": { ...keys.totpGenerator("anna", "t1"), id: "t1", name: "Authenticator", len: 6 },
  "federated-link": {
    ...keys.federatedLink("anna", "oidc", "corp", "ext1"),
    sub: "anna",
    fpType: "oidc",
    fpName: "corp",
    sid: "ext1",
  },
  "security-event": {
    ...keys.securityEvent("anna", 1_700_000_000_000, "e1"),
    sbj: "anna",
    ts: 1_700_000_000_000,
    type: "login",
    cId: "app",
    result: "invalid_credential",
    prms: { method: "password" },
  },
  "org-domain": {
    ...keys.orgDomain("acme", "acme.example"),
    domain: "acme.example",
    orgId: "acme",
    state: "verified",
    policy: "join",
    value: "v1",
    claimedAt: 1,
    verifiedAt: 2,
  },
};

/**
 * Field names that carry secrets somewhere in the table (hashes, codes and their digests,
 * sealed TOTP secrets, passkey keys and counters, tokens, client and session secrets,
 * recovery code digests, answers).
 */
const SECRET_FIELDS = [
  "hash",
  "salt",
  "history",
  "secret",
  "secretHash",
  "secretDigest",
  "secrets",
  "refreshHash",
  "digest",
  "codeHash",
  "codes",
  "code",
  "publicKey",
  "counter",
  "accessToken",
  "refreshToken",
  "idToken",
  "password",
  "passwordHash",
  "answerHash",
  "answer",
  "token",
  "tokenDigest",
  "pending_email",
  "pending_phone_number",
];

const ajv = new Ajv2020({ allErrors: true, strict: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validators = new Map(EVENT_TYPES.map((type) => [type, ajv.compile(eventSchema(type))]));

function expectValid(event: { type: string }) {
  const type = event.type.slice(EVENT_TYPE_PREFIX.length) as EventType;
  const validate = validators.get(type);
  expect(validate, event.type).toBeDefined();
  expect(validate?.(event), `${event.type}: ${JSON.stringify(validate?.errors)}`).toBe(true);
}

function change(kind: ChangeRecord["kind"], oldImage?: Item, newImage?: Item, expired = false): ChangeRecord {
  return { id: "rec-1", sequence: "100", kind, at: 1_700_000_000_000, expired, oldImage, newImage };
}

function stamped(entity: EntityName, item: Item): Item {
  return { ...item, entity, schemaVersion: 1 };
}

describe("every entity of keys.ts", () => {
  it.each(Object.values(ENTITY))("when %s changes, it publishes exactly the types stated for it", (entity) => {
    expect(typesOf(entity)).toEqual(PUBLISHES[entity]);
  });

  it("when every entity is read, each event type has an entity that publishes it", () => {
    const produced = new Set(Object.values(ENTITY).flatMap((entity) => typesOf(entity)));
    expect([...produced].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(Object.values(ENTITY))(
    "when a %s item is inserted, modified or removed, only its stated types come out",
    (entity) => {
      const item = stamped(entity, SAMPLES[entity] ?? { PK: "X#1", SK: "Y", value: 1 });
      const touched = { ...item, updatedAt: 2, lastUsed: 2 };
      const events = [
        ...eventsOf(change("INSERT", undefined, item), SOURCE),
        ...eventsOf(change("MODIFY", item, touched), SOURCE),
        ...eventsOf(change("REMOVE", item, undefined), SOURCE),
      ];
      for (const event of events) {
        expect(PUBLISHES[entity].map((t) => `${EVENT_TYPE_PREFIX}${t}`)).toContain(event.type);
        expectValid(event);
      }
      if (PUBLISHES[entity].length > 0) expect(events.length).toBeGreaterThan(0);
      else expect(events).toEqual([]);
    },
  );
});

describe("organization invitations", () => {
  const invitation = stamped("org-invitation", SAMPLES["org-invitation"] as Item);
  const base = { orgId: "acme", invitationId: "inv1", email: "anna@example.com", roles: ["SYS_MON"] };
  const typesAndData = (record: ChangeRecord) => eventsOf(record, SOURCE).map((e) => [e.type, e.subject, e.data]);

  it("when an invitation is stored, invitation.sent tells the organization, address, roles and expiry, never the digest", () => {
    expect(typesAndData(change("INSERT", undefined, invitation))).toEqual([
      ["svc.identity.invitation.sent", "acme", { ...base, expiresAt: 604_801 }],
    ]);
  });

  it("when it is consumed, invitation.accepted names the account; touching it again publishes nothing", () => {
    const accepted = { ...invitation, acceptedBy: "anna-sub", acceptedAt: 5 };
    expect(typesAndData(change("MODIFY", invitation, accepted))).toEqual([
      ["svc.identity.invitation.accepted", "acme", { ...base, sub: "anna-sub" }],
    ]);
    expect(eventsOf(change("MODIFY", accepted, { ...accepted, acceptedAt: 6 }), SOURCE)).toEqual([]);
  });

  it("when a pending one is removed it is revoked; its TTL or an accepted one's removal publishes nothing", () => {
    expect(typesAndData(change("REMOVE", invitation, undefined))).toEqual([
      ["svc.identity.invitation.revoked", "acme", base],
    ]);
    expect(eventsOf(change("REMOVE", invitation, undefined, true), SOURCE)).toEqual([]);
    const accepted = { ...invitation, acceptedBy: "anna-sub", acceptedAt: 5 };
    expect(eventsOf(change("REMOVE", accepted, undefined), SOURCE)).toEqual([]);
  });
});

describe("no secret in an event", () => {
  const marker = fc
    .uint8Array({ minLength: 6, maxLength: 6 })
    .map((bytes) => `S3CR3T-${Buffer.from(bytes).toString("hex")}`);
  const publishing = Object.keys(SAMPLES) as EntityName[];

  it("when items carry secret fields (at the top, inside contacts and parameters), no event holds any of them", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...publishing),
        fc.subarray(SECRET_FIELDS, { minLength: 1 }),
        marker,
        fc.constantFrom<ChangeRecord["kind"]>("INSERT", "MODIFY", "REMOVE"),
        fc.boolean(),
        (entity, fields, secret, kind, contactProven) => {
          const secrets = Object.fromEntries(fields.map((field) => [field, secret]));
          const base = stamped(entity, SAMPLES[entity] as Item);
          const dirty: Item = {
            ...base,
            ...secrets,
            // Secrets nested where whole objects are read: contacts and security parameters.
            email: { value: "anna@example.com", verified: contactProven, digest: secret, salt: secret },
            prms: { method: "password", code: secret },
          };
          const before = { ...dirty, email: { value: "anna@example.com", verified: false, digest: secret } };
          const events = eventsOf(
            change(kind, kind === "INSERT" ? undefined : before, kind === "REMOVE" ? undefined : dirty),
            SOURCE,
          );
          const text = JSON.stringify(events);
          expect(text).not.toContain("S3CR3T-");
          for (const event of events) expectValid(event);
        },
      ),
      { numRuns: 400, seed: 42 },
    );
  });
});

describe("the envelope", () => {
  it("when a change is mapped again, the event has the same id; another record gives another id", () => {
    const user = stamped("user", SAMPLES.user as Item);
    const [first] = eventsOf(change("INSERT", undefined, user), SOURCE);
    const [again] = eventsOf(change("INSERT", undefined, user), SOURCE);
    const [other] = eventsOf({ ...change("INSERT", undefined, user), id: "rec-2" }, SOURCE);
    expect(first).toEqual(again);
    expect(first.id).toBe("rec-1:account.created");
    expect(other.id).not.toBe(first.id);
    expect(first).toMatchObject({
      specversion: "1.0",
      source: SOURCE,
      type: "svc.identity.account.created",
      time: "2023-11-14T22:13:20.000Z",
      subject: "anna",
      datacontenttype: "application/json",
      data: { sub: "anna", given_name: "Anna", email: { value: "anna@example.com", verified: false }, locked: false },
    });
  });

  it("when both contacts are proven in one write, two account.confirmed events come with distinct ids", () => {
    const user = stamped("user", {
      ...(SAMPLES.user as Item),
      phone_number: { value: "79990001122", verified: false },
    });
    const proven = {
      ...user,
      email: { value: "anna@example.com", verified: true },
      phone_number: { value: "79990001122", verified: true },
    };
    const events = eventsOf(change("MODIFY", user, proven), SOURCE);
    expect(events.map((e) => [e.id, e.type, e.data])).toEqual([
      [
        "rec-1:account.confirmed:email",
        "svc.identity.account.confirmed",
        { sub: "anna", contact: "email", value: "anna@example.com" },
      ],
      [
        "rec-1:account.confirmed:phone_number",
        "svc.identity.account.confirmed",
        { sub: "anna", contact: "phone_number", value: "79990001122" },
      ],
    ]);
  });
});

describe("what each change means", () => {
  const item = (entity: EntityName, extra: Item = {}) => stamped(entity, { ...(SAMPLES[entity] as Item), ...extra });
  const typesFor = (c: ChangeRecord) => eventsOf(c, SOURCE).map((e) => e.type.slice(EVENT_TYPE_PREFIX.length));

  it("when an account's names change, account.updated lists the attributes; a login time alone is no event", () => {
    const user = item("user");
    const [updated] = eventsOf(change("MODIFY", user, { ...user, family_name: "Sidorova" }), SOURCE);
    expect(updated.data).toEqual({ sub: "anna", changed: ["family_name"] });
    expect(typesFor(change("MODIFY", user, { ...user, lastLoginAt: 5, updatedAt: 5 }))).toEqual([]);
  });

  it("when its owner deletes an account, the lock and mark are account.updated; the profile's removal is account.deleted with the sub alone", () => {
    const user = item("user");
    const marked = { ...user, locked: true, deletionScheduledAt: 1_700_600_000, GSI1PK: "ACCOUNT_DELETIONS" };
    const [updated] = eventsOf(change("MODIFY", user, marked), SOURCE);
    expect(updated.data).toEqual({ sub: "anna", changed: ["locked", "deletionScheduledAt"] });
    const [deleted, ...more] = eventsOf(change("REMOVE", marked, undefined), SOURCE);
    expect(more).toEqual([]);
    expect(deleted).toMatchObject({
      type: `${EVENT_TYPE_PREFIX}account.deleted`,
      subject: "anna",
      data: { sub: "anna" },
    });
    expect(Object.keys(deleted.data)).toEqual(["sub"]);
    expectValid(deleted);
  });

  it("when a password is put over the old one, password.changed says it is not the first", () => {
    const credential = item("password-credential");
    const [changed] = eventsOf(change("MODIFY", credential, { ...credential, changedAt: 1_700_000_500 }), SOURCE);
    expect(changed.data).toEqual({ sub: "anna", changedAt: 1_700_000_500, initial: false });
    expect(typesFor(change("REMOVE", credential, undefined))).toEqual([]);
  });

  it("when a session expires by TTL, session.ended says expired; when the service removes it, ended", () => {
    const session = item("session");
    expect(eventsOf(change("REMOVE", session, undefined, true), SOURCE)[0].data.reason).toBe("expired");
    expect(eventsOf(change("REMOVE", session, undefined), SOURCE)[0].data.reason).toBe("ended");
  });

  it("when a right is granted again with the same tags, nothing; with other tags, rights.changed tags_changed", () => {
    const grant = item("right-grant");
    expect(typesFor(change("MODIFY", grant, { ...grant, rev: 2 }))).toEqual([]);
    const [changed] = eventsOf(change("MODIFY", grant, { ...grant, tags: new Set(["a", "b"]) }), SOURCE);
    expect(changed.data).toEqual({
      subject: "anna",
      object: "grps|g1|org",
      right: "read",
      change: "tags_changed",
      tags: ["a", "b"],
    });
  });

  it("when a group is marked for deletion, nothing yet; its removal is group.deleted, subject its party key", () => {
    const group = item("group");
    expect(typesFor(change("MODIFY", group, { ...group, deleting: true }))).toEqual([]);
    const [deleted] = eventsOf(change("REMOVE", group, undefined), SOURCE);
    expect([deleted.type, deleted.subject]).toEqual(["svc.identity.group.deleted", "grps|g1|org"]);
  });

  it("when a login touches its consent without new scopes, nothing; new scopes are consent.granted", () => {
    const consent = item("consent");
    expect(typesFor(change("MODIFY", consent, { ...consent, updated: 2 }))).toEqual([]);
    const [granted] = eventsOf(change("MODIFY", consent, { ...consent, scopes: new Set(["openid", "email"]) }), SOURCE);
    expect(granted.data).toEqual({ sub: "anna", clientId: "app", scopes: ["email", "openid"] });
  });

  it("when a login succeeds, its record is security.recorded; a refused one is signin.failed; TTL removal is nothing", () => {
    const failed = item("security-event");
    const ok = item("security-event", { result: "ok", sid: "s1" });
    expect(typesFor(change("INSERT", undefined, failed))).toEqual(["signin.failed"]);
    expect(eventsOf(change("INSERT", undefined, failed), SOURCE)[0].data).toEqual({
      sub: "anna",
      reason: "invalid_credential",
      clientId: "app",
      method: "password",
    });
    expect(eventsOf(change("INSERT", undefined, ok), SOURCE)[0].data).toEqual({
      kind: "login",
      result: "ok",
      clientId: "app",
      sid: "s1",
      method: "password",
    });
    // A sign-in through an organization's own provider says so, with the organization.
    const sso = item("security-event", { result: "ok", sid: "s2", prms: { method: "org_sso", org: "acme" } });
    expect(eventsOf(change("INSERT", undefined, sso), SOURCE)[0].data).toMatchObject({
      method: "org_sso",
      org: "acme",
    });
    expect(typesFor(change("REMOVE", failed, undefined, true))).toEqual([]);
  });

  it("when an application's registration changes, its security event has the application as subject", () => {
    const event = item("security-event", { sbj: "app", sbjType: "its", type: "client_change", result: "ok" });
    expect(eventsOf(change("INSERT", undefined, event), SOURCE)[0].subject).toBe("its|app");
  });

  it("when a domain claim becomes verified, domain.verified; a check that unverifies it or its removal, domain.unverified; a policy change, nothing", () => {
    const verified = item("org-domain");
    const pending = { ...verified, state: "pending", verifiedAt: undefined };
    expect(typesFor(change("INSERT", undefined, pending))).toEqual([]);
    const [event] = eventsOf(change("MODIFY", pending, verified), SOURCE);
    expect([event.type, event.subject, event.data]).toEqual([
      "svc.identity.domain.verified",
      "acme",
      { orgId: "acme", domain: "acme.example", policy: "join" },
    ]);
    expect(typesFor(change("MODIFY", verified, { ...verified, policy: "sso" }))).toEqual([]);
    expect(typesFor(change("MODIFY", verified, pending))).toEqual(["domain.unverified"]);
    expect(typesFor(change("REMOVE", verified, undefined))).toEqual(["domain.unverified"]);
    expect(typesFor(change("REMOVE", pending, undefined))).toEqual([]);
  });

  it("when an item has no entity (the health item) or an unknown one, nothing", () => {
    expect(eventsOf(change("INSERT", undefined, { PK: "HEALTH", SK: "HEALTH" }), SOURCE)).toEqual([]);
    expect(eventsOf(change("INSERT", undefined, { PK: "A", SK: "B", entity: "toString" }), SOURCE)).toEqual([]);
  });
});
