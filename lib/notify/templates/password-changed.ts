import type { Template } from "../message";

/** E-mail notice that the password was changed (interface §6); says what to do if it was not you. */
export const passwordChanged: Template<{ when: string }> = ({ when }, lang) =>
  lang === "en"
    ? {
        subject: "Your password was changed",
        text: `The password of your account was changed on ${when} (UTC). If you did not do this, reset your password and contact support at once.`,
      }
    : {
        subject: "Ваш пароль изменён",
        text: `Пароль вашей учётной записи изменён ${when} (UTC). Если это сделали не вы, немедленно смените пароль и обратитесь в поддержку.`,
      };
