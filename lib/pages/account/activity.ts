import type { ActivityEntry } from "../../domain/account-console/activity";
import { type Html, html } from "../html";
import { layout, notice } from "../parts";
import type { Language } from "../text";
import { csrfField } from "./layout";

/**
 * Recent activity: each security event of the account in plain words, with when, where
 * (IP) and with what (browser); "This wasn't me"; and the page after it.
 */

type Words = Record<string, string>;

const EN_EVENTS: Words = {
  token_issued: "An application got access to your account after you signed in",
  consent: "You allowed an application to access your account",
  logout: "Signed out",
  session_revoked: "A session was ended: its token was used twice, which can mean it was stolen",
  password_change: "Password changed",
  password_reset: "A code to reset your password was sent",
  subordinate_password_change: "Password changed by an account that manages yours",
  "users.get": "An application read your profile",
  "users.change": "Profile changed",
  "users.props-get": "An application read your settings",
  "users.props-change": "Settings changed",
  "users.validate_mobile": "New phone number confirmed",
  "users.validate_email": "New e-mail address confirmed",
  "security.auth-get": "An application read your sign-in settings",
  "security.auth-change": "Sign-in settings changed (second step or password change)",
  "security.state-get": "An application read your account's state",
  "security.secqsn-get": "An application read your security question",
  secqsn_set: "Security question set",
  secqsn_delete: "Security question removed",
  secqsn_check: "Security question answered",
  "security.totp-list": "An application listed your authenticator apps",
  totp_issue: "Setting up an authenticator app started",
  totp_attach: "Authenticator app added",
  totp_delete: "Authenticator app removed",
  "security.recovery-codes-get": "An application read how many recovery codes you have left",
  recovery_codes_generate: "New recovery codes created",
  recovery_code_use: "A recovery code was used to sign in",
  "security.qr-read": "A sign-in code for another device was opened on your phone",
  qr_login_confirm: "You confirmed a sign-in on another device with your phone",
  qr_login_refuse: "You refused a sign-in on another device",
  "security.passkey-list": "An application listed your passkeys",
  passkey_options: "Adding a passkey started",
  passkey_add: "Passkey added",
  passkey_rename: "Passkey renamed",
  passkey_delete: "Passkey removed",
  "devices.list-uas": "An application listed your devices",
  "devices.list-apps": "An application listed your devices",
  device_delete: "A device was removed and signed out",
  sessions_reset: "Signed out on your other devices",
  "federation.list": "An application listed your linked accounts",
  "federation.bind": "Linking an account of another service started",
  "federation.link": "Account of another service linked",
  "federation.unlink": "Account of another service unlinked",
  "federation.unlink-v2": "Account of another service unlinked",
  "rights.of-user": "An application read your access rights",
  "rights.change": "Access rights changed",
  "rights.catalogue-list": "An application read the list of access rights",
  "rights.catalogue-get": "An application read an access right",
  "audit.events": "Your account activity was read",
  "audit.acls-list": "An application listed your connected applications",
  consent_withdraw: "An application's access was withdrawn",
  not_me: "You reported activity that wasn't you: signed out everywhere, a new password required",
  account_delete_scheduled: "Deleting your account was requested",
  account_delete: "Account deleted",
};

const RU_EVENTS: Words = {
  token_issued: "Приложение получило доступ к учётной записи после вашего входа",
  consent: "Вы разрешили приложению доступ к учётной записи",
  logout: "Выход",
  session_revoked: "Сеанс завершён: его токен использовали дважды, возможно, его украли",
  password_change: "Пароль изменён",
  password_reset: "Отправлен код для сброса пароля",
  subordinate_password_change: "Пароль изменён учётной записью, которая управляет вашей",
  "users.get": "Приложение прочитало ваш профиль",
  "users.change": "Профиль изменён",
  "users.props-get": "Приложение прочитало ваши настройки",
  "users.props-change": "Настройки изменены",
  "users.validate_mobile": "Новый номер телефона подтверждён",
  "users.validate_email": "Новый адрес e-mail подтверждён",
  "security.auth-get": "Приложение прочитало ваши настройки входа",
  "security.auth-change": "Настройки входа изменены (второй шаг или смена пароля)",
  "security.state-get": "Приложение прочитало состояние учётной записи",
  "security.secqsn-get": "Приложение прочитало ваш контрольный вопрос",
  secqsn_set: "Контрольный вопрос задан",
  secqsn_delete: "Контрольный вопрос удалён",
  secqsn_check: "Дан ответ на контрольный вопрос",
  "security.totp-list": "Приложение получило список ваших приложений-аутентификаторов",
  totp_issue: "Начато подключение приложения-аутентификатора",
  totp_attach: "Приложение-аутентификатор подключено",
  totp_delete: "Приложение-аутентификатор отключено",
  "security.recovery-codes-get": "Приложение узнало, сколько резервных кодов осталось",
  recovery_codes_generate: "Созданы новые резервные коды",
  recovery_code_use: "Для входа использован резервный код",
  "security.qr-read": "На телефоне открыт код входа на другом устройстве",
  qr_login_confirm: "Вы подтвердили телефоном вход на другом устройстве",
  qr_login_refuse: "Вы отклонили вход на другом устройстве",
  "security.passkey-list": "Приложение получило список ваших ключей доступа",
  passkey_options: "Начато добавление ключа доступа",
  passkey_add: "Ключ доступа добавлен",
  passkey_rename: "Ключ доступа переименован",
  passkey_delete: "Ключ доступа удалён",
  "devices.list-uas": "Приложение получило список ваших устройств",
  "devices.list-apps": "Приложение получило список ваших устройств",
  device_delete: "Устройство удалено, выход на нём выполнен",
  sessions_reset: "Выполнен выход на других устройствах",
  "federation.list": "Приложение получило список связанных аккаунтов",
  "federation.bind": "Начата привязка аккаунта другого сервиса",
  "federation.link": "Аккаунт другого сервиса привязан",
  "federation.unlink": "Аккаунт другого сервиса отвязан",
  "federation.unlink-v2": "Аккаунт другого сервиса отвязан",
  "rights.of-user": "Приложение прочитало ваши права доступа",
  "rights.change": "Права доступа изменены",
  "rights.catalogue-list": "Приложение прочитало список прав доступа",
  "rights.catalogue-get": "Приложение прочитало описание права доступа",
  "audit.events": "Прочитаны действия с вашей учётной записью",
  "audit.acls-list": "Приложение получило список подключённых приложений",
  consent_withdraw: "Доступ приложения отозван",
  not_me: "Вы сообщили о чужих действиях: выход на всех устройствах, требуется новый пароль",
  account_delete_scheduled: "Запрошено удаление учётной записи",
  account_delete: "Учётная запись удалена",
};

const TEXT = {
  en: {
    title: "Recent activity",
    intro: "Sign-ins, failed sign-ins and changes to your account in the last 30 days, newest first. Times are in UTC.",
    none: "No activity in this period.",
    older: "Show older activity",
    newest: "Back to the newest activity",
    ip: (ip: string) => `IP ${ip}`,
    app: (client: string) => `application ${client}`,
    refused: (why: string) => `Refused: ${why}.`,
    events: EN_EVENTS,
    other: (type: string) => `Account change (${type})`,
    signedIn: "Signed in",
    signInFailed: "Failed sign-in",
    signInRefused: "Sign-in refused",
    method: {
      password: "with your password",
      passkey: "with a passkey",
      federated: "with an account of another service",
      qr: "with your phone (QR code)",
      registration: "after creating the account",
    } as Words,
    factor: {
      totp: "and a code from your authenticator app",
      recovery_code: "and a recovery code",
      email_code: "and a code sent by e-mail",
      sms_code: "and a code sent by SMS",
      passkey: "and a passkey",
    } as Words,
    why: {
      invalid_credential: "wrong password",
      otp_invalid: "wrong code at the second step",
      throttled: "too many attempts",
      account_locked: "the account is locked",
      inactivity_lock: "the account is locked for inactivity",
      method_locked: "this way of signing in is turned off for the account",
      password_change_required: "a new password had to be chosen first",
      denied: "you refused",
    } as Words,
    consentDenied: "You refused an application access to your account",
    notMeTitle: "Don't recognise something?",
    notMeWhy:
      "If you did not do one of these, someone else may know your password. This signs you out on every device, this one too, and asks for a new password at your next sign-in.",
    notMe: "This wasn't me",
    securedTitle: "You are signed out everywhere",
    secured: (n: number) =>
      `We ended every session of your account (${n}), on this device too. Applications signed in as you must sign in again.`,
    securedNext:
      "Next time you sign in with your password, you will be asked to choose a new one. If you think someone knows your password, use “Forgot your password?” on the sign-in page instead: it sends a code to your e-mail or phone, which the other person cannot read.",
    securedAfter:
      "Once signed in, check your sign-in methods (passkeys, authenticator apps, recovery codes) and your contacts, and remove anything that is not yours.",
  },
  ru: {
    title: "Недавние действия",
    intro:
      "Входы, неудачные попытки входа и изменения учётной записи за последние 30 дней, сначала новые. Время указано в UTC.",
    none: "За этот период действий нет.",
    older: "Показать более ранние",
    newest: "К самым новым",
    ip: (ip: string) => `IP ${ip}`,
    app: (client: string) => `приложение ${client}`,
    refused: (why: string) => `Отклонено: ${why}.`,
    events: RU_EVENTS,
    other: (type: string) => `Изменение учётной записи (${type})`,
    signedIn: "Вход",
    signInFailed: "Неудачная попытка входа",
    signInRefused: "Вход отклонён",
    method: {
      password: "по паролю",
      passkey: "по ключу доступа",
      federated: "через аккаунт другого сервиса",
      qr: "с помощью телефона (QR-код)",
      registration: "после создания учётной записи",
    } as Words,
    factor: {
      totp: "и коду из приложения-аутентификатора",
      recovery_code: "и резервному коду",
      email_code: "и коду из письма",
      sms_code: "и коду из SMS",
      passkey: "и ключу доступа",
    } as Words,
    why: {
      invalid_credential: "неверный пароль",
      otp_invalid: "неверный код второго шага",
      throttled: "слишком много попыток",
      account_locked: "учётная запись заблокирована",
      inactivity_lock: "учётная запись заблокирована из-за неактивности",
      method_locked: "этот способ входа для учётной записи отключён",
      password_change_required: "сначала нужно было выбрать новый пароль",
      denied: "вы отказали",
    } as Words,
    consentDenied: "Вы отказали приложению в доступе к учётной записи",
    notMeTitle: "Что-то незнакомое?",
    notMeWhy:
      "Если что-то из этого делали не вы, ваш пароль может знать кто-то ещё. Кнопка завершит все сеансы на всех устройствах, включая это, и при следующем входе потребует новый пароль.",
    notMe: "Это был не я",
    securedTitle: "Выход выполнен на всех устройствах",
    secured: (n: number) =>
      `Мы завершили все сеансы вашей учётной записи (${n}), и на этом устройстве тоже. Приложениям, где вы вошли, придётся войти снова.`,
    securedNext:
      "При следующем входе по паролю вас попросят выбрать новый. Если вы думаете, что ваш пароль знает кто-то ещё, лучше нажмите «Забыли пароль?» на странице входа: код придёт на ваш e-mail или телефон, и посторонний его не увидит.",
    securedAfter:
      "После входа проверьте способы входа (ключи доступа, приложения-аутентификаторы, резервные коды) и контакты и удалите всё чужое.",
  },
} as const;

export const activityTitle = (lang: Language) => TEXT[lang].title;

/** The event in plain words: what happened, and why not when it was refused. */
export function eventWords(lang: Language, entry: ActivityEntry): string {
  const t = TEXT[lang];
  const why = t.why[entry.result] ?? entry.result;
  if (entry.type === "login") {
    const how = [entry.method && t.method[entry.method], entry.factor && t.factor[entry.factor]]
      .filter(Boolean)
      .join(" ");
    if (entry.result === "ok") return how ? `${t.signedIn} ${how}` : t.signedIn;
    const failed = entry.result === "invalid_credential" || entry.result === "otp_invalid";
    return `${failed ? t.signInFailed : t.signInRefused}: ${why}`;
  }
  if (entry.type === "consent" && entry.result === "denied") return t.consentDenied;
  const words = Object.hasOwn(t.events, entry.type) ? t.events[entry.type] : t.other(entry.type);
  // password_reset records what it did, "code_sent"; any other result is a refusal.
  if (entry.result === "ok" || entry.type === "password_reset") return words;
  return `${words}. ${t.refused(why)}`;
}

/** Date and time in the page's language, in UTC: the server does not know the browser's zone. */
export function whenWords(lang: Language, ms: number): string {
  const format = new Intl.DateTimeFormat(lang === "ru" ? "ru-RU" : "en-GB", {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "UTC",
  });
  return `${format.format(new Date(ms))} UTC`;
}

export interface ActivityView {
  lang: Language;
  csrf: string;
  entries: readonly ActivityEntry[];
  /** The `before` of the next page, when there are older events. */
  older?: number;
  /** This page is not the newest. */
  paged: boolean;
  /** Applications whose events are the console's own or the sign-in pages': not named. */
  ownClient: string;
}

function entryItem(view: ActivityView, entry: ActivityEntry): Html {
  const t = TEXT[view.lang];
  const details = [
    entry.ip && t.ip(entry.ip),
    entry.browser,
    entry.client !== view.ownClient && entry.client && t.app(entry.client),
  ].filter((part): part is string => typeof part === "string" && part !== "");
  return html`<li><strong>${eventWords(view.lang, entry)}</strong>
<p class="note"><time datetime="${new Date(entry.ts).toISOString()}">${whenWords(view.lang, entry.ts)}</time>${details.map((d) => ` · ${d}`).join("")}</p></li>`;
}

export function activityBody(view: ActivityView): Html {
  const t = TEXT[view.lang];
  const list = view.entries.length
    ? html`<ul class="items">${view.entries.map((entry) => entryItem(view, entry))}</ul>`
    : html`<p>${t.none}</p>`;
  const older =
    view.older === undefined
      ? html``
      : html`<p><a class="button secondary" href="/svc/account/activity?before=${view.older}">${t.older}</a></p>`;
  const newest = view.paged ? html`<p><a href="/svc/account/activity">${t.newest}</a></p>` : html``;
  return html`<p class="note">${t.intro}</p>${list}${older}${newest}
<h2>${t.notMeTitle}</h2><p>${t.notMeWhy}</p>
<form method="post" action="/svc/account/activity/not-me">${csrfField(view.csrf)}<button type="submit" class="danger">${t.notMe}</button></form>`;
}

/** After "This wasn't me": what happened and what to do next, on a page of its own (signed out). */
export function securedPage(lang: Language, sessions: number): string {
  const t = TEXT[lang];
  return layout(
    lang,
    t.securedTitle,
    html`${notice(t.secured(sessions))}<p>${t.securedNext}</p><p>${t.securedAfter}</p>`,
  );
}
