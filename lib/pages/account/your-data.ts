import { type Html, html } from "../html";
import { alert, layout, notice } from "../parts";
import type { Language } from "../text";
import { csrfField } from "./layout";

/** Your data: download everything held about the account, and delete the account. */

const TEXT = {
  en: {
    title: "Your data",
    downloadTitle: "Download your data",
    downloadWhy:
      "One JSON file with everything we hold about you: profile and contacts, settings, devices and sessions, connected applications, linked accounts, sign-in methods (names only: never passwords, keys or codes), groups and access rights, and your security events.",
    download: "Download your data (JSON)",
    deleteTitle: "Delete your account",
    deleteNow:
      "Your account and everything in it are deleted at once: you are signed out everywhere, applications lose access, and your e-mail address and phone number become free for a new account. This cannot be undone.",
    deleteLater: (days: number) =>
      `Your account is locked at once and deleted after ${days} ${days === 1 ? "day" : "days"}: you are signed out everywhere and nobody can sign in. To keep the account, contact support before then. After that it cannot be undone.`,
    understand: "I understand that my account and its data will be deleted",
    deleteButton: "Delete my account",
    mustConfirm: "Tick the box to confirm that you want to delete your account.",
    done: { confirmed: "Thank you. Now make the change again." } as Record<string, string>,
    deletedTitle: "Your account was deleted",
    deleted:
      "Your account and its data were deleted, and you were signed out everywhere. Applications you used with it no longer have access.",
    scheduledTitle: "Your account will be deleted",
    scheduled: (date: string) =>
      `Your account is locked and will be deleted on ${date}. You were signed out everywhere. To keep it, contact support before then.`,
  },
  ru: {
    title: "Ваши данные",
    downloadTitle: "Скачать ваши данные",
    downloadWhy:
      "Один файл JSON со всем, что мы храним о вас: профиль и контакты, настройки, устройства и сеансы, подключённые приложения, связанные аккаунты, способы входа (только названия: никаких паролей, ключей и кодов), группы и права доступа, события безопасности.",
    download: "Скачать ваши данные (JSON)",
    deleteTitle: "Удалить учётную запись",
    deleteNow:
      "Учётная запись и всё, что в ней есть, удаляются сразу: вы выйдете на всех устройствах, приложения потеряют доступ, а ваши e-mail и номер телефона можно будет использовать для новой учётной записи. Отменить это нельзя.",
    deleteLater: (days: number) =>
      `Учётная запись сразу блокируется и удаляется через ${days} дн.: вы выйдете на всех устройствах, и войти в неё будет нельзя. Чтобы сохранить её, обратитесь в поддержку до этого срока. Потом отменить удаление нельзя.`,
    understand: "Я понимаю, что учётная запись и её данные будут удалены",
    deleteButton: "Удалить учётную запись",
    mustConfirm: "Отметьте флажок, чтобы подтвердить удаление учётной записи.",
    done: { confirmed: "Спасибо. Теперь повторите изменение." } as Record<string, string>,
    deletedTitle: "Учётная запись удалена",
    deleted:
      "Ваша учётная запись и её данные удалены, выход выполнен на всех устройствах. Приложения, где вы ею пользовались, больше не имеют доступа.",
    scheduledTitle: "Учётная запись будет удалена",
    scheduled: (date: string) =>
      `Учётная запись заблокирована и будет удалена ${date}. Выход выполнен на всех устройствах. Чтобы сохранить её, обратитесь в поддержку до этого срока.`,
  },
} as const;

export const yourDataTitle = (lang: Language) => TEXT[lang].title;

export interface YourDataView {
  lang: Language;
  csrf: string;
  graceDays: number;
  done?: string;
  mustConfirm?: boolean;
}

export function yourDataBody(view: YourDataView): Html {
  const t = TEXT[view.lang];
  return html`${notice(view.done === undefined ? undefined : t.done[view.done])}${alert(view.mustConfirm ? t.mustConfirm : undefined)}
<h2>${t.downloadTitle}</h2><p class="note">${t.downloadWhy}</p>
<p><a class="button secondary" href="/svc/account/data/export" download>${t.download}</a></p>
<h2>${t.deleteTitle}</h2><p>${view.graceDays > 0 ? t.deleteLater(view.graceDays) : t.deleteNow}</p>
<form method="post" action="/svc/account/data/delete">${csrfField(view.csrf)}
<label><input type="checkbox" name="confirm" value="yes" required>${t.understand}</label>
<button type="submit" class="danger">${t.deleteButton}</button></form>`;
}

/** After the deletion, signed out: deleted, or locked until `at`. */
export function deletedPage(lang: Language, at?: number): string {
  const t = TEXT[lang];
  if (at === undefined) return layout(lang, t.deletedTitle, html`${notice(t.deleted)}`);
  const date = new Intl.DateTimeFormat(lang === "ru" ? "ru-RU" : "en-GB", {
    dateStyle: "long",
    timeZone: "UTC",
  }).format(new Date(at * 1000));
  return layout(lang, t.scheduledTitle, html`${notice(t.scheduled(date))}`);
}
