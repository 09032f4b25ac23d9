/**
 * The event stream's envelope (docs/events.md): CloudEvents 1.0, JSON, one per committed
 * change of identity state or stored security event.
 */

/** Every `type` starts with this; the rest is one of EVENT_TYPES. */
export const EVENT_TYPE_PREFIX = "svc.identity.";

export const EVENT_TYPES = [
  "account.created",
  "account.updated",
  "account.confirmed",
  "account.deleted",
  "password.changed",
  "session.started",
  "session.ended",
  "device.added",
  "device.deleted",
  "rights.changed",
  "group.created",
  "group.updated",
  "group.deleted",
  "group.member_added",
  "group.member_removed",
  "organization.member_added",
  "organization.member_removed",
  "consent.granted",
  "consent.withdrawn",
  "passkey.added",
  "passkey.removed",
  "totp.added",
  "totp.removed",
  "federation.linked",
  "federation.unlinked",
  "signin.failed",
  "security.recorded",
  // Verified domains (docs/organizations.md#verified-domains).
  "domain.verified",
  "domain.unverified",
  // ---- organization invitations ----
  "invitation.sent",
  "invitation.accepted",
  "invitation.revoked",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export type EventData = Record<string, string | number | boolean | string[] | Record<string, unknown>>;

export interface CloudEvent {
  specversion: "1.0";
  /** The stream record's eventID and the type: the same change always gives the same id. */
  id: string;
  /** The issuer (SVC_ISSUER): which deployment published it. */
  source: string;
  type: `${typeof EVENT_TYPE_PREFIX}${EventType}`;
  /** When the change was committed (the stream record's time), RFC 3339. */
  time: string;
  /** The account's sub, or the party key of a group (`grps|id|profile`) or application (`its|id`). */
  subject: string;
  datacontenttype: "application/json";
  data: EventData;
}

export function fullType(type: EventType): CloudEvent["type"] {
  return `${EVENT_TYPE_PREFIX}${type}`;
}
