import type { Template } from "../message";

/** SMS with a password the service generated (interface §4.1 sendPswdToAttr). */
export const generatedPassword: Template<{ password: string }> = ({ password }, lang) =>
  lang === "en" ? { text: `Your new password: ${password}` } : { text: `Ваш новый пароль: ${password}` };
