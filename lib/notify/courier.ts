import type { Courier, Language, MessageName, MessageParams } from "../domain/messages/ports";
import type { MessageRenderer } from "./custom-message";
import type { MessageSender, Template } from "./message";
import { confirmationCode } from "./templates/confirmation-code";
import { generatedPassword } from "./templates/generated-password";
import { passwordChanged } from "./templates/password-changed";
import { passwordResetCode } from "./templates/password-reset-code";
import { signInCode } from "./templates/sign-in-code";

/** One template per message the domain names. */
const TEMPLATES: { [N in MessageName]: Template<MessageParams[N]> } = {
  "confirmation-code": confirmationCode,
  "generated-password": generatedPassword,
  "password-changed": passwordChanged,
  "password-reset-code": passwordResetCode,
  "sign-in-code": signInCode,
};

/**
 * Routes each message to the sender of its channel and renders its template, so
 * domain code says what to send, never how.
 */
export function createCourier(
  senders: { sms: MessageSender; email: MessageSender },
  render: MessageRenderer = async (_channel, _to, _name, params, lang, template) => template(params, lang),
): Courier {
  return {
    async send<N extends MessageName>(
      channel: "sms" | "email",
      to: string,
      name: N,
      params: MessageParams[N],
      lang: Language,
    ): Promise<void> {
      const template: Template<MessageParams[N]> = TEMPLATES[name];
      const { subject, text } = await render(channel, to, name, params, lang, template);
      await senders[channel].send({ channel, to, subject: channel === "email" ? subject : undefined, text, lang });
    },
  };
}
