import type { PasswordView } from "../../domain/account-console/password";
import type { PolicyViolation } from "../../domain/passwords/policy";
import { type Html, html } from "../html";
import { alert, notice, violationList } from "../parts";
import type { Language } from "../text";
import { csrfField } from "./layout";

/** The password section: when it was last changed, and a new one under the policy. */

const TEXT = {
  en: {
    title: "Password",
    changedAt: (when: string) => `Your password was last changed on ${when} (UTC).`,
    noPassword: "Your account has no password: you sign in another way. You can set one here.",
    newPassword: "New password",
    repeat: "Repeat the new password",
    rules: (n: number) => `At least ${n} characters. A long phrase that only you know is best.`,
    signOutOthers: "Sign out everywhere else",
    signOutWhy: "Every other browser and device signed in to your account is signed out; this one stays signed in.",
    change: "Change password",
    set: "Set password",
    done: {
      confirmed: "Thank you. Now make the change again.",
      changed: "Your password was changed.",
      "changed-signed-out": "Your password was changed, and you were signed out everywhere else.",
    } as Record<string, string>,
    problems: {
      policy: "The new password does not meet the password rules:",
      mismatch: "The two new passwords differ. Type the same password twice.",
    },
  },
  ru: {
    title: "Пароль",
    changedAt: (when: string) => `Пароль последний раз изменён ${when} (UTC).`,
    noPassword: "У учётной записи нет пароля: вы входите другим способом. Здесь его можно задать.",
    newPassword: "Новый пароль",
    repeat: "Повторите новый пароль",
    rules: (n: number) => `Не короче ${n} символов. Лучше всего длинная фраза, которую знаете только вы.`,
    signOutOthers: "Выйти на всех других устройствах",
    signOutWhy:
      "Все другие браузеры и устройства, где выполнен вход, будут отключены; этот браузер останется в системе.",
    change: "Изменить пароль",
    set: "Задать пароль",
    done: {
      confirmed: "Спасибо. Теперь повторите изменение.",
      changed: "Пароль изменён.",
      "changed-signed-out": "Пароль изменён, на всех других устройствах выполнен выход.",
    } as Record<string, string>,
    problems: {
      policy: "Новый пароль не соответствует правилам:",
      mismatch: "Новые пароли не совпадают. Введите один и тот же пароль дважды.",
    },
  },
} as const;

export type PasswordProblem = keyof (typeof TEXT)["en"]["problems"];

export const passwordTitle = (lang: Language) => TEXT[lang].title;

export interface PasswordPageView extends PasswordView {
  lang: Language;
  csrf: string;
  done?: string;
  problem?: PasswordProblem;
  violations?: readonly PolicyViolation[];
}

/** "2026-11-29 10:45": to the minute, UTC, as the change notice says it. */
const minuteOf = (seconds: number) => new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 16);

export function passwordBody(view: PasswordPageView): Html {
  const t = TEXT[view.lang];
  const state = !view.hasPassword
    ? html`<p>${t.noPassword}</p>`
    : view.changedAt === undefined
      ? html``
      : html`<p>${t.changedAt(minuteOf(view.changedAt))}</p>`;
  const problem = view.problem && t.problems[view.problem];
  return html`${notice(view.done === undefined ? undefined : t.done[view.done])}${alert(problem, violationList(view.violations, view.lang))}
${state}
<form method="post" action="/svc/account/password">${csrfField(view.csrf)}
<label for="new-password">${t.newPassword}</label>
<input id="new-password" name="new_password" type="password" autocomplete="new-password" maxlength="1024" required aria-describedby="password-rules">
<p class="note" id="password-rules">${t.rules(view.minLength)}</p>
<label for="repeat-password">${t.repeat}</label>
<input id="repeat-password" name="repeat_password" type="password" autocomplete="new-password" maxlength="1024" required>
<label for="sign-out-others"><input id="sign-out-others" name="sign_out_others" type="checkbox" value="true" aria-describedby="sign-out-why">${t.signOutOthers}</label>
<p class="note" id="sign-out-why">${t.signOutWhy}</p>
<button type="submit">${view.hasPassword ? t.change : t.set}</button></form>`;
}
