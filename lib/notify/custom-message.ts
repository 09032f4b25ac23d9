import type { HookOutput } from "../domain/hooks/contracts";
import { HookFailedError, type HookRunner } from "../domain/hooks/ports";
import type { Channel, Language, MessageName, MessageParams } from "../domain/messages/ports";
import type { Template } from "./message";

/** Stands for the code (or generated password) in the text the customMessage hook sees and answers. */
export const SECRET_PLACEHOLDER = "{####}";

/** The parameter of each message that is a secret: the hook never sees it, only the placeholder. */
const SECRET_PARAM: { [N in MessageName]?: keyof MessageParams[N] & string } = {
  "confirmation-code": "code",
  "password-reset-code": "code",
  "sign-in-code": "code",
  "generated-password": "password",
  // The link holds the invitation's token: the hook never sees it.
  "organization-invitation": "link",
};

/** Renders one message, possibly replaced by the customMessage hook. */
export type MessageRenderer = <N extends MessageName>(
  channel: Channel,
  to: string,
  name: N,
  params: MessageParams[N],
  lang: Language,
  template: Template<MessageParams[N]>,
) => Promise<{ subject?: string; text: string }>;

/**
 * The customMessage hook (docs/hooks.md) as a renderer: the hook gets the template's text with
 * the secret as SECRET_PLACEHOLDER and may answer another subject and text. A text that drops
 * the placeholder, or no usable answer, keeps the template's own words (and is logged): a message
 * without its code would be worse than a plain one.
 */
export function hookRenderer(
  hooks: () => HookRunner,
  log: (message: string, fields: Record<string, unknown>) => void,
): MessageRenderer {
  return async (channel, to, name, params, lang, template) => {
    const original = template(params, lang);
    const runner = hooks();
    if (!runner.configured("customMessage")) return original;
    const secretParam = SECRET_PARAM[name];
    const masked = secretParam ? template({ ...params, [secretParam]: SECRET_PLACEHOLDER }, lang) : original;
    let answer: HookOutput<"customMessage"> | undefined;
    try {
      answer = await runner.call("customMessage", {
        channel,
        message: name,
        language: lang,
        to,
        text: masked.text,
        ...(channel === "email" && masked.subject !== undefined && { subject: masked.subject }),
        ...(secretParam && { placeholder: SECRET_PLACEHOLDER }),
      });
    } catch (error) {
      // The runner logged why; the message still goes out in the template's words.
      if (error instanceof HookFailedError) return original;
      throw error;
    }
    if (!answer || (answer.text === undefined && answer.subject === undefined)) return original;
    const text = answer.text ?? masked.text;
    if (secretParam && !text.includes(SECRET_PLACEHOLDER)) {
      log("customMessage hook dropped the code placeholder; the template's text was sent", { template: name });
      return original;
    }
    const secret = secretParam ? String(params[secretParam as keyof typeof params]) : "";
    return {
      subject: answer.subject ?? original.subject,
      text: secretParam ? text.replaceAll(SECRET_PLACEHOLDER, secret) : text,
    };
  };
}
