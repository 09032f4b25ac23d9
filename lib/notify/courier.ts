import type { Language, MessageSender, OutgoingMessage, Template } from "./message";

/**
 * Routes each message to the sender of its channel and renders its template, so
 * domain code says what to send, never how.
 */
export function createCourier(senders: { sms: MessageSender; email: MessageSender }) {
  return {
    async send<P>(
      channel: OutgoingMessage["channel"],
      to: string,
      template: Template<P>,
      params: P,
      lang: Language,
    ): Promise<void> {
      const { subject, text } = template(params, lang);
      await senders[channel].send({ channel, to, subject: channel === "email" ? subject : undefined, text, lang });
    },
  };
}

export type Courier = ReturnType<typeof createCourier>;
