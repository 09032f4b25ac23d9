import { html } from "./html";
import { layout } from "./parts";
import type { Language } from "./text";

const LINK_CONFIRM_TEXT = {
  en: {
    title: "Confirm the link",
    ask: (fpName: string, userName: string | undefined) =>
      `Link the ${fpName} account${userName ? ` “${userName}”` : ""} to the account that started linking? Only that account's owner can confirm, with its password. If you did not start this, close the page.`,
    password: "Password of the account",
    confirm: "Link",
  },
  ru: {
    title: "Подтвердите привязку",
    ask: (fpName: string, userName: string | undefined) =>
      `Привязать учётную запись ${fpName}${userName ? ` «${userName}»` : ""} к учётной записи, которая начала привязку? Подтвердить может только её владелец, паролем. Если вы этого не начинали, закройте страницу.`,
    password: "Пароль учётной записи",
    confirm: "Привязать",
  },
} as const;

/** No sign-in interaction here: the form carries the link's own confirmation and CSRF token to the v2 API. */
export interface LinkConfirmView {
  lang: Language;
  confirmation: string;
  csrf: string;
  fpName: string;
  userName?: string;
}

/** The owner's confirmation of a link to an external account (interface §4.9). */
export function linkConfirmPage(view: LinkConfirmView): string {
  const t = LINK_CONFIRM_TEXT[view.lang];
  const body = html`<p>${t.ask(view.fpName, view.userName)}</p>
<form method="post" action="/svc/api/v2/users/current/fa/confirm">
<input type="hidden" name="confirmation" value="${view.confirmation}"><input type="hidden" name="csrf" value="${view.csrf}">
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">${t.confirm}</button>
</form>`;
  return layout(view.lang, t.title, body);
}
