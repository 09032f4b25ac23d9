import type { ConsoleDevice } from "../../domain/account-console/devices";
import { type Html, html } from "../html";
import { alert, notice } from "../parts";
import type { Language } from "../text";
import { csrfField } from "./layout";

/** The devices and sessions section: where the account is signed in, and signing out there. */

const TEXT = {
  en: {
    title: "Devices and sessions",
    why: "Where your account is signed in, most recently used first. If you don't recognise a device, sign it out and change your password.",
    none: "Your account is not signed in on any device.",
    thisDevice: "This device",
    used: (when: string, ip: string) => `Last used ${when} from ${ip}`,
    since: (day: string) => `first signed in ${day}`,
    signOut: (name: string) => `Sign out ${name}`,
    signOutHere: "Sign out of this device",
    everywhere: "Sign out everywhere else",
    everywhereWhy:
      "Ends your sessions on every other device, in the browser and in the applications there. This device stays signed in.",
    done: {
      "device-signed-out": "The device was signed out.",
      "others-signed-out": "You were signed out everywhere else.",
    } as Record<string, string>,
    problems: { unknownDevice: "That device is not one of yours, or it was signed out already." },
  },
  ru: {
    title: "Устройства и сеансы",
    why: "Где выполнен вход в вашу учётную запись, сначала недавние. Если устройство вам незнакомо, завершите на нём сеанс и смените пароль.",
    none: "Вход в учётную запись не выполнен ни на одном устройстве.",
    thisDevice: "Это устройство",
    used: (when: string, ip: string) => `Последнее использование ${when} с адреса ${ip}`,
    since: (day: string) => `первый вход ${day}`,
    signOut: (name: string) => `Выйти на устройстве ${name}`,
    signOutHere: "Выйти на этом устройстве",
    everywhere: "Выйти на всех других устройствах",
    everywhereWhy:
      "Завершает ваши сеансы на всех других устройствах, в браузере и в приложениях. На этом устройстве вход сохранится.",
    done: {
      "device-signed-out": "Сеанс на устройстве завершён.",
      "others-signed-out": "Сеансы на всех других устройствах завершены.",
    } as Record<string, string>,
    problems: { unknownDevice: "Это устройство не ваше, или сеанс на нём уже завершён." },
  },
} as const;

export type DevicesProblem = keyof (typeof TEXT)["en"]["problems"];

export const devicesTitle = (lang: Language) => TEXT[lang].title;

const dayOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const momentOf = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC`;

export interface DevicesView {
  lang: Language;
  csrf: string;
  devices: readonly ConsoleDevice[];
  done?: string;
  problem?: DevicesProblem;
}

function deviceItem(view: DevicesView, d: ConsoleDevice): Html {
  const t = TEXT[view.lang];
  const mark = d.current ? html` · <strong>${t.thisDevice}</strong>` : html``;
  return html`<li${d.current ? html` aria-current="true"` : html``}><strong>${d.name}</strong>${mark}
<p class="note">${t.used(momentOf(d.lastUsed), d.latestIp)}, ${t.since(dayOf(d.createdAt))}</p>
<form method="post" action="/svc/account/devices/sign-out" class="inline">${csrfField(view.csrf)}<input type="hidden" name="id" value="${d.id}"><button type="submit" class="danger">${d.current ? t.signOutHere : t.signOut(d.name)}</button></form></li>`;
}

export function devicesBody(view: DevicesView): Html {
  const t = TEXT[view.lang];
  const list = view.devices.length
    ? html`<ul class="items">${view.devices.map((d) => deviceItem(view, d))}</ul>`
    : html`<p>${t.none}</p>`;
  const others = view.devices.some((d) => !d.current)
    ? html`<h2>${t.everywhere}</h2><p class="note">${t.everywhereWhy}</p>
<form method="post" action="/svc/account/devices/sign-out-others">${csrfField(view.csrf)}<button type="submit" class="secondary">${t.everywhere}</button></form>`
    : html``;
  return html`${notice(view.done === undefined ? undefined : t.done[view.done])}${alert(view.problem && t.problems[view.problem])}
<p class="note">${t.why}</p>${list}${others}`;
}
