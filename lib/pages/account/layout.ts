import { brandMark, pageBrand } from "../brand";
import { type Html, html, styleSheets } from "../html";
import type { Language } from "../text";

/**
 * The account console's frame (docs/account.md): the product's name, a sign-out link, the
 * sections as a navigation list (a row of links on a phone), the section in a card.
 */

export const SECTIONS = ["profile", "password", "methods", "devices", "apps", "linked", "activity", "data"] as const;
export type Section = (typeof SECTIONS)[number];

export const SECTION_PATHS: Record<Section, string> = {
  profile: "/svc/account",
  password: "/svc/account/password",
  methods: "/svc/account/sign-in-methods",
  devices: "/svc/account/devices",
  apps: "/svc/account/apps",
  linked: "/svc/account/linked",
  activity: "/svc/account/activity",
  data: "/svc/account/data",
};

/** What every section's page shares, in both languages. */
export const CONSOLE_TEXT = {
  en: {
    consoleTitle: "Your account",
    navLabel: "Account sections",
    signOut: "Sign out",
    sections: {
      profile: "Profile",
      password: "Password",
      methods: "Sign-in methods",
      devices: "Devices and sessions",
      apps: "Connected applications",
      linked: "Linked accounts",
      activity: "Recent activity",
      data: "Your data",
    } satisfies Record<Section, string>,
    signedOut: "You are not signed in. Sign in to manage your account.",
    signIn: "Sign in",
    expiredForm: "This form has expired. It was opened too long ago or in another window: try again.",
    confirmTitle: "Confirm it's you",
    confirmWhy: "For your security, confirm it's you before this change. You won't be asked again for 10 minutes.",
    confirmPassword: "Your password",
    confirmSubmit: "Confirm",
    confirmWithPasskey: "Confirm with a passkey",
    confirmFailed: "That did not confirm it's you. Try again.",
    passkeyMissing: "Your browser did not answer with a passkey. Try again, or use your password.",
    confirmedAgain: "Thank you. Now make the change again.",
  },
  ru: {
    consoleTitle: "Ваша учётная запись",
    navLabel: "Разделы учётной записи",
    signOut: "Выйти",
    sections: {
      profile: "Профиль",
      password: "Пароль",
      methods: "Способы входа",
      devices: "Устройства и сеансы",
      apps: "Подключённые приложения",
      linked: "Связанные аккаунты",
      activity: "Недавние действия",
      data: "Ваши данные",
    } satisfies Record<Section, string>,
    signedOut: "Вы не вошли. Войдите, чтобы управлять учётной записью.",
    signIn: "Войти",
    expiredForm: "Срок действия формы истёк: она открыта слишком давно или в другом окне. Попробуйте снова.",
    confirmTitle: "Подтвердите, что это вы",
    confirmWhy: "Для вашей безопасности подтвердите, что это вы. В ближайшие 10 минут мы не спросим снова.",
    confirmPassword: "Ваш пароль",
    confirmSubmit: "Подтвердить",
    confirmWithPasskey: "Подтвердить ключом доступа (passkey)",
    confirmFailed: "Подтвердить не удалось. Попробуйте снова.",
    passkeyMissing: "Браузер не ответил ключом доступа. Попробуйте снова или введите пароль.",
    confirmedAgain: "Спасибо. Теперь повторите изменение.",
  },
} as const;

export type ConsoleTexts = (typeof CONSOLE_TEXT)[Language];

/** A signed-in page of the console; `section` is marked as the current one in the navigation. */
export function consolePage(view: { lang: Language; section: Section | undefined; title: string; body: Html }) {
  const t = CONSOLE_TEXT[view.lang];
  const brand = pageBrand();
  const links = SECTIONS.map(
    (s) =>
      html`<li><a href="${SECTION_PATHS[s]}"${s === view.section ? html` aria-current="page"` : html``}>${t.sections[s]}</a></li>`,
  );
  return html`<!doctype html>
<html lang="${view.lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view.title} · ${t.consoleTitle}${brand.productName ? ` · ${brand.productName}` : ""}</title>${styleSheets(brand.theme)}</head>
<body><header class="console-top"><a class="brand" href="${SECTION_PATHS.profile}">${brandMark(brand, view.lang, false)}${brand.productName || brand.logo ? html`<span class="brand-sub">${t.consoleTitle}</span>` : t.consoleTitle}</a>
<a class="button secondary" href="/svc/oauth/logout?ui_locales=${view.lang}">${t.signOut}</a></header>
<div class="console"><nav aria-label="${t.navLabel}"><ul>${links}</ul></nav>
<main class="card"><h1>${view.title}</h1>${view.body}</main></div></body>
</html>`.markup;
}

/** Every console form carries the CSRF token (double submit: the cookie and this field). */
export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}
