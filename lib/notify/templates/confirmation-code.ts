import type { Template } from "../message";

/**
 * A code that confirms a phone or e-mail (registration, contact change; interface §6).
 * The text holds no other digit run as long as the code, so the code is easy to pick
 * out of it (the outbox contract, docs/configuration.md).
 */
export const confirmationCode: Template<{
  code: string;
  minutes: number;
  purpose: "registration" | "contact-change";
}> = ({ code, minutes, purpose }, lang) => {
  if (lang === "en") {
    const why = purpose === "registration" ? "to finish your registration" : "to confirm your new contact";
    return {
      subject: "Your confirmation code",
      text: `Your code ${why}: ${code}. It is valid for ${minutes} min. If you did not ask for it, ignore this message.`,
    };
  }
  const why = purpose === "registration" ? "для завершения регистрации" : "для подтверждения нового контакта";
  return {
    subject: "Код подтверждения",
    text: `Ваш код ${why}: ${code}. Он действует ${minutes} мин. Если вы его не запрашивали, проигнорируйте это сообщение.`,
  };
};
