import type { PasskeyView } from "../../domain/passkeys/passkeys";
import type { TotpView } from "../../domain/security/totp-generators";
import { type Html, html } from "../html";
import { alert, notice, PASSKEY_SCRIPT, passkeyForm } from "../parts";
import type { Language } from "../text";
import { csrfField } from "./layout";

/** The sign-in methods section: passkeys, authenticator apps, recovery codes, the second factor. */

const TEXT = {
  en: {
    title: "Sign-in methods",
    passkeys: "Passkeys",
    passkeysWhy: "Sign in with your fingerprint, face or screen lock instead of a password.",
    noPasskeys: "You have no passkeys yet.",
    created: (date: string) => `added ${date}`,
    lastUsed: (date: string) => `last used ${date}`,
    neverUsed: "not used yet",
    synced: "synced to your other devices",
    rename: "New name",
    renameSubmit: (name: string) => `Rename ${name}`,
    remove: (name: string) => `Remove ${name}`,
    passkeyName: "Name of the new passkey",
    addPasskey: "Add a passkey",
    passkeyMissing: "Your browser did not answer with a passkey. Try again.",
    authenticators: "Authenticator app",
    authenticatorsWhy: "Codes from an app such as Google Authenticator or 1Password, asked after your password.",
    noAuthenticators: "No authenticator app is set up.",
    setUp: "Set up an authenticator app",
    scan: "Scan this QR code with the app, or type the key, then enter the code the app shows.",
    qrAlt: "QR code of the key for your authenticator app",
    key: "Key",
    appName: "Name of the app (optional)",
    code: "Code from the app",
    attach: "Turn on",
    codes: "Codes by e-mail or SMS",
    codesTo: (channel: "email" | "sms", to: string) =>
      channel === "email"
        ? `A code to ${to} can be your second step.`
        : `A code by SMS to ${to} can be your second step.`,
    noCodes: "Codes by e-mail or SMS are not offered, or you have no confirmed address for them.",
    recovery: "Recovery codes",
    recoveryLeft: (n: number) =>
      `${n} of 10 recovery codes left. Each signs you in once when your second factor is not at hand.`,
    recoveryShownOnce:
      "Save these codes now: they are shown only this once. Each works once; the old ones no longer do.",
    recoveryCreate: "Create new recovery codes",
    secondFactor: "Second step at sign-in",
    secondFactorOn: "Every sign-in asks for a second step after your password.",
    secondFactorOff: "Sign-in asks for a second step only when an application requires it.",
    turnOn: "Ask at every sign-in",
    turnOff: "Stop asking at every sign-in",
    done: {
      confirmed: "Thank you. Now make the change again.",
      "passkey-added": "The passkey was added.",
      "passkey-renamed": "The passkey was renamed.",
      "passkey-removed": "The passkey was removed.",
      "app-added": "The authenticator app is on.",
      "app-removed": "The authenticator app was removed.",
      "second-factor-on": "Every sign-in now asks for a second step.",
      "second-factor-off": "Sign-in no longer asks for a second step every time.",
    } as Record<string, string>,
    problems: {
      passkeyRefused: "The passkey could not be added. Try again.",
      passkeyUnknown: "That passkey is not one of yours (it may have been removed already).",
      wrongCode: "The code is not right, or the key expired (10 minutes). Set it up again.",
      noMethod: "Add a passkey or an authenticator app first: there would be no second step to ask for.",
      unknownApp: "That authenticator app is not set up for your account.",
    },
  },
  ru: {
    title: "Способы входа",
    passkeys: "Ключи доступа (passkeys)",
    passkeysWhy: "Входите по отпечатку пальца, лицу или блокировке экрана вместо пароля.",
    noPasskeys: "Ключей доступа пока нет.",
    created: (date: string) => `добавлен ${date}`,
    lastUsed: (date: string) => `последнее использование ${date}`,
    neverUsed: "ещё не использовался",
    synced: "синхронизируется с другими устройствами",
    rename: "Новое название",
    renameSubmit: (name: string) => `Переименовать ${name}`,
    remove: (name: string) => `Удалить ${name}`,
    passkeyName: "Название нового ключа",
    addPasskey: "Добавить ключ доступа",
    passkeyMissing: "Браузер не ответил ключом доступа. Попробуйте снова.",
    authenticators: "Приложение-аутентификатор",
    authenticatorsWhy: "Коды из приложения, например Google Authenticator или 1Password, после пароля.",
    noAuthenticators: "Приложение-аутентификатор не подключено.",
    setUp: "Подключить приложение-аутентификатор",
    scan: "Отсканируйте QR-код приложением или введите ключ, затем введите код из приложения.",
    qrAlt: "QR-код ключа для приложения-аутентификатора",
    key: "Ключ",
    appName: "Название приложения (необязательно)",
    code: "Код из приложения",
    attach: "Включить",
    codes: "Коды по e-mail или SMS",
    codesTo: (channel: "email" | "sms", to: string) =>
      channel === "email" ? `Вторым шагом может быть код на ${to}.` : `Вторым шагом может быть код по SMS на ${to}.`,
    noCodes: "Коды по e-mail или SMS не предлагаются, или для них нет подтверждённого адреса.",
    recovery: "Резервные коды",
    recoveryLeft: (n: number) =>
      `Осталось резервных кодов: ${n} из 10. Каждый один раз заменяет второй фактор, если его нет под рукой.`,
    recoveryShownOnce:
      "Сохраните эти коды сейчас: они показываются только один раз. Каждый действует один раз; прежние больше не действуют.",
    recoveryCreate: "Создать новые резервные коды",
    secondFactor: "Второй шаг при входе",
    secondFactorOn: "При каждом входе после пароля запрашивается второй шаг.",
    secondFactorOff: "Второй шаг запрашивается, только если его требует приложение.",
    turnOn: "Запрашивать при каждом входе",
    turnOff: "Не запрашивать при каждом входе",
    done: {
      confirmed: "Спасибо. Теперь повторите изменение.",
      "passkey-added": "Ключ доступа добавлен.",
      "passkey-renamed": "Ключ доступа переименован.",
      "passkey-removed": "Ключ доступа удалён.",
      "app-added": "Приложение-аутентификатор подключено.",
      "app-removed": "Приложение-аутентификатор отключено.",
      "second-factor-on": "Теперь при каждом входе запрашивается второй шаг.",
      "second-factor-off": "Второй шаг больше не запрашивается при каждом входе.",
    } as Record<string, string>,
    problems: {
      passkeyRefused: "Не удалось добавить ключ доступа. Попробуйте снова.",
      passkeyUnknown: "Этот ключ доступа не ваш (возможно, он уже удалён).",
      wrongCode: "Код неверен или срок ключа истёк (10 минут). Подключите приложение заново.",
      noMethod: "Сначала добавьте ключ доступа или приложение-аутентификатор: иначе второй шаг нечем пройти.",
      unknownApp: "Это приложение-аутентификатор не подключено к вашей учётной записи.",
    },
  },
} as const;

export type MethodsProblem = keyof (typeof TEXT)["en"]["problems"];

export const methodsTitle = (lang: Language) => TEXT[lang].title;

const dateOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

export interface MethodsView {
  lang: Language;
  csrf: string;
  passkeys: readonly PasskeyView[];
  creationOptions: string;
  authenticators: readonly TotpView[];
  /** Where a second-step code can go (the operator's channels, the account's confirmed contacts). */
  codesTo: ReadonlyArray<{ channel: "email" | "sms"; to: string }>;
  recoveryLeft: number;
  secondFactorRequired: boolean;
  done?: string;
  problem?: MethodsProblem;
  /** A set of recovery codes just made, shown this once. */
  newCodes?: readonly string[];
  /** An authenticator-app key just issued, waiting for its first code. */
  pendingApp?: { base64QRCode: string; base32Secret: string };
}

function passkeyItem(view: MethodsView, p: PasskeyView, i: number): Html {
  const t = TEXT[view.lang];
  const used = p.lastUsed === undefined ? t.neverUsed : t.lastUsed(dateOf(p.lastUsed));
  return html`<li><strong>${p.name}</strong>
<p class="note">${t.created(dateOf(p.createdAt))}, ${used}${p.backedUp ? `, ${t.synced}` : ""}</p>
<form method="post" action="/svc/account/sign-in-methods/passkeys/rename">${csrfField(view.csrf)}<input type="hidden" name="id" value="${p.id}">
<label for="rename-${i}">${t.rename}</label><input id="rename-${i}" name="name" maxlength="64" required autocomplete="off">
<button type="submit" class="secondary">${t.renameSubmit(p.name)}</button></form>
<form method="post" action="/svc/account/sign-in-methods/passkeys/delete" class="inline">${csrfField(view.csrf)}<input type="hidden" name="id" value="${p.id}"><button type="submit" class="danger">${t.remove(p.name)}</button></form></li>`;
}

function authenticatorPart(view: MethodsView): Html {
  const t = TEXT[view.lang];
  const list = view.authenticators.length
    ? html`<ul class="items">${view.authenticators.map(
        (a) =>
          html`<li><strong>${a.name}</strong> <form method="post" action="/svc/account/sign-in-methods/authenticator/delete" class="inline">${csrfField(view.csrf)}<input type="hidden" name="id" value="${a.id}"><button type="submit" class="danger">${t.remove(a.name)}</button></form></li>`,
      )}</ul>`
    : html`<p>${t.noAuthenticators}</p>`;
  const pending = view.pendingApp;
  const setUp = pending
    ? html`<p>${t.scan}</p><img class="qr" src="data:image/png;base64,${pending.base64QRCode}" alt="${t.qrAlt}" width="200" height="200">
<p>${t.key}: <code>${pending.base32Secret}</code></p>
<form method="post" action="/svc/account/sign-in-methods/authenticator/confirm">${csrfField(view.csrf)}<input type="hidden" name="secret" value="${pending.base32Secret}">
<label for="app-name">${t.appName}</label><input id="app-name" name="name" maxlength="64" autocomplete="off">
<label for="app-code">${t.code}</label><input id="app-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6,8}" required>
<button type="submit">${t.attach}</button></form>`
    : html`<form method="post" action="/svc/account/sign-in-methods/authenticator">${csrfField(view.csrf)}<button type="submit" class="secondary">${t.setUp}</button></form>`;
  return html`<h2>${t.authenticators}</h2><p class="note">${t.authenticatorsWhy}</p>${list}${setUp}`;
}

export function methodsBody(view: MethodsView): Html {
  const t = TEXT[view.lang];
  const passkeys = view.passkeys.length
    ? html`<ul class="items">${view.passkeys.map((p, i) => passkeyItem(view, p, i))}</ul>`
    : html`<p>${t.noPasskeys}</p>`;
  const add = passkeyForm(
    "create",
    view.creationOptions,
    "/svc/account/sign-in-methods/passkeys",
    html`${csrfField(view.csrf)}<label for="passkey-name">${t.passkeyName}</label>
<input id="passkey-name" name="name" autocomplete="off" maxlength="64">`,
    { label: t.addPasskey, failed: t.passkeyMissing },
  );
  const recovery = view.newCodes
    ? html`<p role="status">${t.recoveryShownOnce}</p><ol class="codes">${view.newCodes.map((c) => html`<li><code>${c}</code></li>`)}</ol>`
    : html`<p>${t.recoveryLeft(view.recoveryLeft)}</p>`;
  const required = view.secondFactorRequired;
  return html`${notice(view.done === undefined ? undefined : t.done[view.done])}${alert(view.problem && t.problems[view.problem])}
<h2>${t.passkeys}</h2><p class="note">${t.passkeysWhy}</p>${passkeys}${add}
${authenticatorPart(view)}
<h2>${t.codes}</h2>${
    view.codesTo.length
      ? html`<ul class="items">${view.codesTo.map((c) => html`<li>${t.codesTo(c.channel, c.to)}</li>`)}</ul>`
      : html`<p>${t.noCodes}</p>`
  }
<h2>${t.recovery}</h2>${recovery}
<form method="post" action="/svc/account/sign-in-methods/recovery-codes">${csrfField(view.csrf)}<button type="submit" class="secondary">${t.recoveryCreate}</button></form>
<h2>${t.secondFactor}</h2><p>${required ? t.secondFactorOn : t.secondFactorOff}</p>
<form method="post" action="/svc/account/sign-in-methods/second-factor">${csrfField(view.csrf)}<input type="hidden" name="required" value="${required ? "false" : "true"}"><button type="submit" class="secondary">${required ? t.turnOff : t.turnOn}</button></form>
${PASSKEY_SCRIPT}`;
}
