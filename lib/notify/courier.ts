import type { Courier, Language, MessageName, MessageParams } from "../domain/messages/ports";
import { type MetricsPort, noMetrics } from "../domain/metrics";
import type { MessageRenderer } from "./custom-message";
import type { MessageSender, Template } from "./message";
import { confirmationCode } from "./templates/confirmation-code";
import { generatedPassword } from "./templates/generated-password";
import { organizationInvitation } from "./templates/organization-invitation";
import { passwordChanged } from "./templates/password-changed";
import { passwordResetCode } from "./templates/password-reset-code";
import { registrationAttempt } from "./templates/registration-attempt";
import { securityChange } from "./templates/security-change";
import { signInCode } from "./templates/sign-in-code";

/** One template per message the domain names. */
const TEMPLATES: { [N in MessageName]: Template<MessageParams[N]> } = {
  "confirmation-code": confirmationCode,
  "generated-password": generatedPassword,
  "organization-invitation": organizationInvitation,
  "password-changed": passwordChanged,
  "password-reset-code": passwordResetCode,
  "registration-attempt": registrationAttempt,
  "security-change": securityChange,
  "sign-in-code": signInCode,
};

const renderTemplate: MessageRenderer = async (_channel, _to, _name, params, lang, template) => template(params, lang);

/**
 * Routes each message to the sender of its channel and renders its template, so
 * domain code says what to send, never how. Each message is counted sent or failed by
 * channel and name (codes among them), never by recipient.
 */
export function createCourier(
  senders: { sms: MessageSender; email: MessageSender },
  render: MessageRenderer = renderTemplate,
  metrics: MetricsPort = noMetrics,
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
      try {
        await senders[channel].send({ channel, to, subject: channel === "email" ? subject : undefined, text, lang });
      } catch (error) {
        metrics.count("MessageSendFailed", { channel, message: name });
        throw error;
      }
      metrics.count("MessageSent", { channel, message: name });
    },
  };
}
