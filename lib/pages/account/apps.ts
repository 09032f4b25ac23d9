import type { ConnectedApp } from "../../domain/account-console/connected-apps";
import { type Html, html } from "../html";
import { alert, notice } from "../parts";
import { type Language, TEXT as PAGE_TEXT } from "../text";
import { csrfField } from "./layout";

/** The connected applications section: what each application was allowed, and taking it back. */

const TEXT = {
  en: {
    title: "Connected applications",
    why: "Applications you allowed to use your account. Removing access signs the application out at once; it asks you again the next time you use it.",
    none: "You have not allowed any application to use your account.",
    granted: (day: string) => `Allowed ${day}.`,
    can: "It can:",
    at: (host: string) => `at ${host}`,
    remove: (name: string) => `Remove access for ${name}`,
    done: { removed: "The application's access was removed." } as Record<string, string>,
    problems: { unknownApp: "That application has no access to your account, or it was removed already." },
  },
  ru: {
    title: "Подключённые приложения",
    why: "Приложения, которым вы разрешили доступ к учётной записи. Если отозвать доступ, приложение сразу потеряет вход и спросит разрешение снова при следующем использовании.",
    none: "Вы ещё не разрешили доступ ни одному приложению.",
    granted: (day: string) => `Разрешено ${day}.`,
    can: "Приложение может:",
    at: (host: string) => `на ${host}`,
    remove: (name: string) => `Отозвать доступ у ${name}`,
    done: { removed: "Доступ приложения отозван." } as Record<string, string>,
    problems: { unknownApp: "У этого приложения нет доступа к вашей учётной записи, или он уже отозван." },
  },
} as const;

export type AppsProblem = keyof (typeof TEXT)["en"]["problems"];

export const appsTitle = (lang: Language) => TEXT[lang].title;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A scope in the consent page's words; a resource's own scope (`<uri>#<scope>`) with the resource's host. */
export function scopeWords(lang: Language, scope: string): string {
  const t = PAGE_TEXT[lang];
  const known = t.scope[scope];
  if (known) return known;
  const hash = scope.lastIndexOf("#");
  if (hash > 0) {
    try {
      return `${t.permission(scope.slice(hash + 1))} ${TEXT[lang].at(new URL(scope.slice(0, hash)).host)}`;
    } catch {
      // Not a resource's URI: the scope as it is.
    }
  }
  return t.permission(scope);
}

export interface AppsView {
  lang: Language;
  csrf: string;
  apps: readonly ConnectedApp[];
  done?: string;
  problem?: AppsProblem;
}

function appItem(view: AppsView, app: ConnectedApp): Html {
  const t = TEXT[view.lang];
  const name = app.host ? `${app.name} (${app.host})` : app.name;
  const scopes = app.scopes.length
    ? html`<ul>${app.scopes.map((s) => html`<li>${scopeWords(view.lang, s)}</li>`)}</ul>`
    : html``;
  return html`<li><strong>${name}</strong>
<p class="note">${t.granted(dayOf(app.granted))}${app.scopes.length ? ` ${t.can}` : ""}</p>${scopes}
<form method="post" action="/svc/account/apps/remove" class="inline">${csrfField(view.csrf)}<input type="hidden" name="id" value="${app.id}"><button type="submit" class="danger">${t.remove(name)}</button></form></li>`;
}

export function appsBody(view: AppsView): Html {
  const t = TEXT[view.lang];
  const list = view.apps.length
    ? html`<ul class="items">${view.apps.map((a) => appItem(view, a))}</ul>`
    : html`<p>${t.none}</p>`;
  return html`${notice(view.done === undefined ? undefined : t.done[view.done])}${alert(view.problem && t.problems[view.problem])}
<p class="note">${t.why}</p>${list}`;
}
