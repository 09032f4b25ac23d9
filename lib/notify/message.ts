/** One outgoing SMS or e-mail, as every sender receives it. */
export interface OutgoingMessage {
  channel: "sms" | "email";
  /** Phone digits (country code first) or an e-mail address. */
  to: string;
  /** E-mail only. */
  subject?: string;
  text: string;
  lang: "ru" | "en";
}

export interface MessageSender {
  send(message: OutgoingMessage): Promise<void>;
}

/** Sending failed; the caller reports it and must not leave half-written state. */
export class MessageNotSentError extends Error {
  constructor(
    readonly channel: OutgoingMessage["channel"],
    cause: unknown,
  ) {
    super(`the ${channel === "sms" ? "SMS" : "e-mail"} could not be sent`, { cause });
    this.name = "MessageNotSentError";
  }
}

export type Language = OutgoingMessage["lang"];

/** A template: the texts of one message in each language. */
export type Template<Params> = (params: Params, lang: Language) => { subject?: string; text: string };
