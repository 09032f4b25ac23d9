/**
 * instanceId (interface §2.2) is opaque to callers. We derive it from the subject id so that
 * the calls addressed by instanceId cost no lookup: decoding it is free, and the
 * authorization step can compare it with a user token's subject before any storage call.
 */

const PREFIX = "u1.";

export function instanceIdOf(sub: string): string {
  return PREFIX + Buffer.from(sub, "utf8").toString("base64url");
}

/** The subject an instanceId names, or undefined when it is not one of ours. */
export function subjectOfInstanceId(instanceId: string): string | undefined {
  if (!instanceId.startsWith(PREFIX)) return undefined;
  const encoded = instanceId.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
  const sub = Buffer.from(encoded, "base64url").toString("utf8");
  // Reject non-canonical encodings so one account has exactly one instanceId.
  return instanceIdOf(sub) === instanceId ? sub : undefined;
}

export const INSTANCE_ID_PATTERN = "^u1\\.[A-Za-z0-9_-]{1,200}$";

/** A contact-change state (interface §2.6): the account's instanceId, a dot, a random part. */
export function contactStateOf(sub: string, random: string): string {
  return `${instanceIdOf(sub)}.${random}`;
}

/** The subject a contact-change state belongs to, or undefined when it is not one of ours. */
export function subjectOfContactState(state: string): string | undefined {
  const cut = state.lastIndexOf(".");
  if (cut <= 0 || !/^[A-Za-z0-9_-]{16,64}$/.test(state.slice(cut + 1))) return undefined;
  return subjectOfInstanceId(state.slice(0, cut));
}

export const CONTACT_STATE_PATTERN = "^u1\\.[A-Za-z0-9_-]{1,200}\\.[A-Za-z0-9_-]{16,64}$";
