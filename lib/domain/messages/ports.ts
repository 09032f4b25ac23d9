/** Messages the domain sends, by name; the courier renders each from its own template. */

export type Channel = "sms" | "email";
export type Language = "ru" | "en";

/** Every message there is, with the parameters its template needs. */
export interface MessageParams {
  /** A code that confirms a phone or e-mail (registration, contact change). */
  "confirmation-code": { code: string; minutes: number; purpose: "registration" | "contact-change" };
  /** A code to set a new password after the old one was forgotten. */
  "password-reset-code": { code: string; minutes: number };
  /** A one-time code that completes a sign-in as its second factor. */
  "sign-in-code": { code: string; minutes: number };
  /** A password the service generated. */
  "generated-password": { password: string };
  /** Notice that the password was changed, and when (UTC). */
  "password-changed": { when: string };
  /** Notice of a change to how the account signs in or is reached, and when (UTC); says what to do if it was not you. */
  "security-change": { change: SecurityChange; when: string };
  /** Notice to an address's owner that someone registered with it (no code: it completes nothing). */
  "registration-attempt": { contact: "email" | "phone" };
  /** An invitation to join an organization: its single-use link and how many days it lasts. */
  "organization-invitation": { organization: string; link: string; days: number };
}

export type MessageName = keyof MessageParams;

/** The changes a security notice tells of. */
export type SecurityChange = "passkey-added" | "authenticator-added" | "email-changed" | "phone-changed";

export interface Courier {
  /** Throws MessageNotSentError when the message could not be sent. */
  send<N extends MessageName>(
    channel: Channel,
    to: string,
    name: N,
    params: MessageParams[N],
    lang: Language,
  ): Promise<void>;
}

/** Sending failed; the caller reports it and must not leave half-written state. */
export class MessageNotSentError extends Error {
  constructor(
    readonly channel: Channel,
    cause: unknown,
  ) {
    super(`the ${channel === "sms" ? "SMS" : "e-mail"} could not be sent`, { cause });
    this.name = "MessageNotSentError";
  }
}
