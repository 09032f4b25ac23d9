import { EVENT_TYPE_PREFIX, EVENT_TYPES, type EventType, fullType } from "./cloud-event";

/**
 * The JSON Schema of each event type (docs/events.md): the CloudEvents envelope and the
 * type's `data`. `npm run compile-schemas` writes them to schemas/events/<type>.json;
 * test/events checks the files are current and every published event is valid.
 */

const str = { type: "string" } as const;
const int = { type: "integer" } as const;
const bool = { type: "boolean" } as const;
const strings = { type: "array", items: str } as const;
const contact = {
  type: "object",
  additionalProperties: false,
  required: ["value", "verified"],
  properties: { value: str, verified: bool },
} as const;

type Properties = Record<string, object>;

function data(required: string[], properties: Properties) {
  return { type: "object", additionalProperties: false, required, properties };
}

const account = data(["sub"], { sub: str });
const session = { sub: str, sid: str, clientId: str, uaId: str };
const device = data(["sub", "uaId"], { sub: str, uaId: str, name: str });
const group = data(["profile", "groupId"], { profile: str, groupId: str, name: str });
const member = data(["profile", "groupId", "sub"], { profile: str, groupId: str, sub: str });
const orgMember = data(["orgId", "sub"], { orgId: str, sub: str });
const orgDomain = data(["orgId", "domain"], { orgId: str, domain: str, policy: { enum: ["none", "join", "sso"] } });
// Organization invitations: never the link's token or its digest.
const invitation = { orgId: str, invitationId: str, email: str, roles: strings };
const passkey = data(["sub", "passkeyId"], { sub: str, passkeyId: str, name: str });
const totp = data(["sub", "totpId"], { sub: str, totpId: str, name: str });
const link = data(["sub", "fpType", "fpName"], { sub: str, fpType: str, fpName: str, sid: str });
const caller = { clientId: str, ip: str, userAgent: str };

export const DATA_SCHEMAS: Record<EventType, object> = {
  "account.created": data(["sub", "locked"], {
    sub: str,
    family_name: str,
    given_name: str,
    middle_name: str,
    email: contact,
    phone_number: contact,
    locked: bool,
    createdAt: int,
  }),
  "account.updated": data(["sub", "changed"], { sub: str, changed: { ...strings, minItems: 1 } }),
  "account.confirmed": data(["sub", "contact", "value"], {
    sub: str,
    contact: { enum: ["email", "phone_number"] },
    value: str,
  }),
  "account.deleted": account,
  "password.changed": data(["sub", "initial"], { sub: str, changedAt: int, initial: bool }),
  "session.started": data(["sub", "sid"], session),
  "session.ended": data(["sub", "sid", "reason"], { ...session, reason: { enum: ["ended", "expired"] } }),
  "device.added": device,
  "device.deleted": device,
  "rights.changed": data(["subject", "object", "right", "change", "tags"], {
    subject: str,
    object: str,
    right: str,
    change: { enum: ["granted", "revoked", "tags_changed"] },
    tags: strings,
  }),
  "group.created": group,
  "group.updated": group,
  "group.deleted": group,
  "group.member_added": member,
  "group.member_removed": member,
  "organization.member_added": orgMember,
  "organization.member_removed": orgMember,
  "consent.granted": data(["sub", "clientId", "scopes"], { sub: str, clientId: str, scopes: strings }),
  "consent.withdrawn": data(["sub", "clientId"], { sub: str, clientId: str }),
  "passkey.added": passkey,
  "passkey.removed": passkey,
  "totp.added": totp,
  "totp.removed": totp,
  "federation.linked": link,
  "federation.unlinked": link,
  "signin.failed": data(["sub", "reason"], { sub: str, reason: str, method: str, ...caller }),
  "security.recorded": data(["kind", "result"], { kind: str, result: str, sid: str, method: str, org: str, ...caller }),
  "domain.verified": orgDomain,
  "domain.unverified": orgDomain,
  // ---- organization invitations ----
  "invitation.sent": data(["orgId", "invitationId", "email", "roles", "expiresAt"], {
    ...invitation,
    invitedBy: str,
    expiresAt: int,
  }),
  "invitation.accepted": data(["orgId", "invitationId", "email", "roles", "sub"], { ...invitation, sub: str }),
  "invitation.revoked": data(["orgId", "invitationId", "email", "roles"], invitation),
};

/** The whole event of one type: envelope and data, JSON Schema 2020-12. */
export function eventSchema(type: EventType) {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: `https://svc-identity.example/schemas/events/${type}.json`,
    title: `${EVENT_TYPE_PREFIX}${type}`,
    type: "object",
    additionalProperties: false,
    required: ["specversion", "id", "source", "type", "time", "subject", "datacontenttype", "data"],
    properties: {
      specversion: { const: "1.0" },
      id: { type: "string", minLength: 1 },
      source: { type: "string", minLength: 1, format: "uri-reference" },
      type: { const: fullType(type) },
      time: { type: "string", format: "date-time" },
      subject: { type: "string" },
      datacontenttype: { const: "application/json" },
      data: DATA_SCHEMAS[type],
    },
  };
}

/** schemas/events/<type>.json -> its text, as committed. */
export function eventSchemaFiles(): Record<string, string> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [`schemas/events/${type}.json`, `${JSON.stringify(eventSchema(type), null, 2)}\n`]),
  );
}
