import type { ContactField, ProfileView } from "../../domain/account-console/profile";
import { type Html, html } from "../html";
import { alert, notice } from "../parts";
import type { Language } from "../text";
import { csrfField } from "./layout";

/** The profile section: names, the e-mail and the phone with whether each is confirmed, a change waiting for its code. */

const TEXT = {
  en: {
    title: "Profile",
    names: "Name",
    given_name: "Given name",
    middle_name: "Middle name",
    family_name: "Family name",
    namesHint: "Leave a field empty to remove that name.",
    saveNames: "Save name",
    contacts: { email: "E-mail", phone_number: "Phone" },
    none: { email: "No e-mail address.", phone_number: "No phone number." },
    confirmed: "confirmed",
    unconfirmed: "not confirmed",
    newValue: { email: "New e-mail address", phone_number: "New phone number" },
    phoneHint: "With the country code, e.g. +7 999 123-45-67.",
    start: { email: "Change e-mail", phone_number: "Change phone" },
    changeWhy: {
      email: "A code goes to the new address; the change is made when you enter it here.",
      phone_number: "A code goes to the new number by SMS; the change is made when you enter it here.",
    },
    waiting: (value: string) => `Waiting for the code sent to ${value}.`,
    attemptsLeft: (n: number) => `Attempts left: ${n}.`,
    noAttempts: "No attempts are left for this code: ask for a new one below.",
    code: (value: string) => `Code sent to ${value}`,
    confirm: { email: "Confirm e-mail", phone_number: "Confirm phone" },
    done: {
      confirmed: "Thank you. Now make the change again.",
      names: "Your name was saved.",
      "names-unchanged": "Nothing to save: the name is as it was.",
      "email-code": "A code is on its way to the new e-mail address.",
      "phone_number-code": "A code is on its way to the new phone number.",
      "email-changed": "Your e-mail address was changed and is confirmed.",
      "phone_number-changed": "Your phone number was changed and is confirmed.",
    } as Record<string, string>,
    problems: {
      badEmail: "That is not a valid e-mail address.",
      badPhone: "That is not a valid phone number: give the country code and 10 to 14 digits.",
      tooManyCodes: "No more codes can be sent to that address now. Try again later.",
      notSent: "The code could not be sent. Nothing was changed; try again later.",
      wrongCode: (n: number) => `That code is not right. Attempts left: ${n}.`,
      noAttemptsLeft: "That code is not right, and no attempts are left. Ask for a new code.",
      codeExpired: "The code has expired. Ask for a new one.",
      noChange: "No change waits for this code any more. Ask for a new code.",
      emailTaken: "This e-mail address is already used by another account. Nothing was changed.",
      phoneTaken: "This phone number is already used by another account. Nothing was changed.",
      changedMeanwhile: "Your account changed while this was sent. Try again.",
    },
  },
  ru: {
    title: "Профиль",
    names: "Имя и фамилия",
    given_name: "Имя",
    middle_name: "Отчество",
    family_name: "Фамилия",
    namesHint: "Оставьте поле пустым, чтобы удалить это имя.",
    saveNames: "Сохранить имя",
    contacts: { email: "Электронная почта", phone_number: "Телефон" },
    none: { email: "Адрес электронной почты не указан.", phone_number: "Номер телефона не указан." },
    confirmed: "подтверждён",
    unconfirmed: "не подтверждён",
    newValue: { email: "Новый адрес электронной почты", phone_number: "Новый номер телефона" },
    phoneHint: "С кодом страны, например +7 999 123-45-67.",
    start: { email: "Изменить почту", phone_number: "Изменить телефон" },
    changeWhy: {
      email: "На новый адрес придёт код; изменение произойдёт, когда вы введёте его здесь.",
      phone_number: "На новый номер придёт код в SMS; изменение произойдёт, когда вы введёте его здесь.",
    },
    waiting: (value: string) => `Ждём код, отправленный на ${value}.`,
    attemptsLeft: (n: number) => `Осталось попыток: ${n}.`,
    noAttempts: "Попыток для этого кода не осталось: запросите новый ниже.",
    code: (value: string) => `Код, отправленный на ${value}`,
    confirm: { email: "Подтвердить почту", phone_number: "Подтвердить телефон" },
    done: {
      confirmed: "Спасибо. Теперь повторите изменение.",
      names: "Имя сохранено.",
      "names-unchanged": "Сохранять нечего: имя не изменилось.",
      "email-code": "Код отправлен на новый адрес электронной почты.",
      "phone_number-code": "Код отправлен на новый номер телефона.",
      "email-changed": "Адрес электронной почты изменён и подтверждён.",
      "phone_number-changed": "Номер телефона изменён и подтверждён.",
    } as Record<string, string>,
    problems: {
      badEmail: "Это не адрес электронной почты.",
      badPhone: "Это не номер телефона: укажите код страны и от 10 до 14 цифр.",
      tooManyCodes: "Сейчас на этот адрес больше нельзя отправить код. Попробуйте позже.",
      notSent: "Код не удалось отправить. Ничего не изменено; попробуйте позже.",
      wrongCode: (n: number) => `Код неверен. Осталось попыток: ${n}.`,
      noAttemptsLeft: "Код неверен, и попыток не осталось. Запросите новый код.",
      codeExpired: "Срок действия кода истёк. Запросите новый.",
      noChange: "Для этого кода больше нет ожидающего изменения. Запросите новый код.",
      emailTaken: "Этот адрес электронной почты уже использует другая учётная запись. Ничего не изменено.",
      phoneTaken: "Этот номер телефона уже использует другая учётная запись. Ничего не изменено.",
      changedMeanwhile: "Учётная запись изменилась, пока отправлялся запрос. Попробуйте снова.",
    },
  },
} as const;

type Problems = (typeof TEXT)["en"]["problems"];

/** Why a change was refused; `wrongCode` with the attempts left. */
export type ProfileProblem = { key: Exclude<keyof Problems, "wrongCode"> } | { key: "wrongCode"; attemptsLeft: number };

export const profileTitle = (lang: Language) => TEXT[lang].title;

export interface ProfilePageView extends ProfileView {
  lang: Language;
  csrf: string;
  done?: string;
  problem?: ProfileProblem;
  /** The address just typed, kept in its field after a refusal. */
  typed?: Partial<Record<ContactField, string>>;
}

function problemText(lang: Language, problem: ProfileProblem | undefined): string | undefined {
  if (!problem) return undefined;
  const words = TEXT[lang].problems;
  return problem.key === "wrongCode" ? words.wrongCode(problem.attemptsLeft) : words[problem.key];
}

function namesPart(view: ProfilePageView): Html {
  const t = TEXT[view.lang];
  const autocomplete = { given_name: "given-name", middle_name: "additional-name", family_name: "family-name" };
  const field = (name: "given_name" | "middle_name" | "family_name") =>
    html`<label for="${name}">${t[name]}</label><input id="${name}" name="${name}" value="${view.names[name] ?? ""}" maxlength="256" autocomplete="${autocomplete[name]}">`;
  return html`<h2>${t.names}</h2>
<form method="post" action="/svc/account/names">${csrfField(view.csrf)}
${field("given_name")}${field("middle_name")}${field("family_name")}
<p class="note">${t.namesHint}</p>
<button type="submit">${t.saveNames}</button></form>`;
}

function contactPart(view: ProfilePageView, field: ContactField): Html {
  const t = TEXT[view.lang];
  const stored = view[field];
  const current = stored
    ? html`<p><strong>${stored.value}</strong> (${stored.verified ? t.confirmed : t.unconfirmed})</p>`
    : html`<p>${t.none[field]}</p>`;
  const pending = view.pending[field];
  const id = field === "email" ? "email" : "phone";
  const waiting = pending
    ? html`<p>${t.waiting(pending.value)} ${pending.attemptsLeft > 0 ? t.attemptsLeft(pending.attemptsLeft) : t.noAttempts}</p>${
        pending.attemptsLeft > 0
          ? html`<form method="post" action="/svc/account/${id}/confirm">${csrfField(view.csrf)}<input type="hidden" name="state" value="${pending.state}">
<label for="${id}-code">${t.code(pending.value)}</label><input id="${id}-code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="16" required>
<button type="submit">${t.confirm[field]}</button></form>`
          : html``
      }`
    : html``;
  const input =
    field === "email"
      ? html`<input id="new-email" name="email" type="email" autocomplete="email" maxlength="254" required value="${view.typed?.email ?? ""}">`
      : html`<input id="new-phone" name="phone" type="tel" autocomplete="tel" maxlength="32" required aria-describedby="phone-hint" value="${view.typed?.phone_number ?? ""}"><p class="note" id="phone-hint">${t.phoneHint}</p>`;
  return html`<h2>${t.contacts[field]}</h2>${current}${waiting}
<form method="post" action="/svc/account/${id}">${csrfField(view.csrf)}
<label for="new-${id}">${t.newValue[field]}</label>${input}
<p class="note">${t.changeWhy[field]}</p>
<button type="submit" class="secondary">${t.start[field]}</button></form>`;
}

export function profileBody(view: ProfilePageView): Html {
  const t = TEXT[view.lang];
  return html`${notice(view.done === undefined ? undefined : t.done[view.done])}${alert(problemText(view.lang, view.problem))}
${namesPart(view)}
${contactPart(view, "email")}
${contactPart(view, "phone_number")}`;
}
