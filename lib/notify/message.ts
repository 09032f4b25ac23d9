import type { Channel, Language } from "../domain/messages/ports";

/** One outgoing SMS or e-mail, as every sender receives it. */
export interface OutgoingMessage {
  channel: Channel;
  /** Phone digits (country code first) or an e-mail address. */
  to: string;
  /** E-mail only. */
  subject?: string;
  text: string;
  lang: Language;
}

export interface MessageSender {
  send(message: OutgoingMessage): Promise<void>;
}

/** A template: the texts of one message in each language. */
export type Template<Params> = (params: Params, lang: Language) => { subject?: string; text: string };
