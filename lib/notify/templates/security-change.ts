import type { SecurityChange } from "../../domain/messages/ports";
import type { Template } from "../message";

const WHAT: Record<SecurityChange, { en: string; ru: string }> = {
  "passkey-added": {
    en: "A passkey was added to your account",
    ru: "К вашей учётной записи добавлен ключ доступа (passkey)",
  },
  "authenticator-added": {
    en: "An authenticator app was set up for your account",
    ru: "К вашей учётной записи подключено приложение-аутентификатор",
  },
  "email-changed": {
    en: "The e-mail address of your account was changed",
    ru: "Адрес e-mail вашей учётной записи изменён",
  },
  "phone-changed": {
    en: "The phone number of your account was changed",
    ru: "Номер телефона вашей учётной записи изменён",
  },
};

/** E-mail notice of a new way into the account or a new contact; says what to do if it was not you. */
export const securityChange: Template<{ change: SecurityChange; when: string }> = ({ change, when }, lang) =>
  lang === "en"
    ? {
        subject: WHAT[change].en,
        text: `${WHAT[change].en} on ${when} (UTC). If you did not do this, open your account's recent activity, choose "This wasn't me", and contact support.`,
      }
    : {
        subject: WHAT[change].ru,
        text: `${WHAT[change].ru} ${when} (UTC). Если это сделали не вы, откройте недавние действия учётной записи, нажмите «Это был не я» и обратитесь в поддержку.`,
      };
