import type { FederatedLink } from "../../domain/federation/records";
import { type Html, html } from "../html";
import { alert, notice } from "../parts";
import type { Language } from "../text";
import { csrfField } from "./layout";

/** The linked accounts section: accounts at other services that sign in here, unlinking one, linking another. */

const TEXT = {
  en: {
    title: "Linked accounts",
    why: "Accounts at other services you can sign in with.",
    none: "No account at another service is linked.",
    account: (name: string) => `Account ${name}`,
    unlink: (label: string) => `Unlink ${label}`,
    linkAnother: "Link another account",
    linkWhy: "You sign in at the service, then come back here.",
    link: (provider: string) => `Link a ${provider} account`,
    done: {
      confirmed: "Thank you. Now make the change again.",
      linked: "The account was linked. You can now sign in with it.",
      unlinked: "The account was unlinked.",
    } as Record<string, string>,
    problems: {
      unknownLink: "That linked account is not one of yours, or it was unlinked already.",
      unknownProvider: "That service is not available for linking.",
    },
    /** What the bind flow reports back (`error`). */
    errors: {
      already_linked: "That account is already linked to another account here.",
      access_denied: "The account was not linked.",
      other: "The other service did not link the account. Try again.",
    } as Record<string, string>,
  },
  ru: {
    title: "Связанные аккаунты",
    why: "Аккаунты других сервисов, с которыми можно входить.",
    none: "Нет связанных аккаунтов других сервисов.",
    account: (name: string) => `Аккаунт ${name}`,
    unlink: (label: string) => `Отвязать ${label}`,
    linkAnother: "Связать ещё один аккаунт",
    linkWhy: "Вы войдёте на сайте сервиса и вернётесь сюда.",
    link: (provider: string) => `Связать аккаунт ${provider}`,
    done: {
      confirmed: "Спасибо. Теперь повторите изменение.",
      linked: "Аккаунт связан. Теперь с ним можно входить.",
      unlinked: "Аккаунт отвязан.",
    } as Record<string, string>,
    problems: {
      unknownLink: "Этот связанный аккаунт не ваш, или он уже отвязан.",
      unknownProvider: "Этот сервис недоступен для связывания.",
    },
    errors: {
      already_linked: "Этот аккаунт уже связан с другой учётной записью.",
      access_denied: "Аккаунт не связан.",
      other: "Сервис не связал аккаунт. Попробуйте снова.",
    } as Record<string, string>,
  },
} as const;

export type LinkedProblem = keyof (typeof TEXT)["en"]["problems"];

export const linkedTitle = (lang: Language) => TEXT[lang].title;

export interface LinkedView {
  lang: Language;
  csrf: string;
  links: readonly FederatedLink[];
  /** Configured providers the account has no link to yet. */
  unlinked: readonly { fp: string; name: string }[];
  done?: string;
  problem?: LinkedProblem;
  /** The bind flow came back with this `error`. */
  bindError?: string;
}

function linkItem(view: LinkedView, link: FederatedLink): Html {
  const t = TEXT[view.lang];
  const who = link.userName ?? link.sid;
  return html`<li><strong>${link.fpName}</strong>
<p class="note">${t.account(who)}</p>
<form method="post" action="/svc/account/linked/unlink" class="inline">${csrfField(view.csrf)}<input type="hidden" name="fpType" value="${link.fpType}"><input type="hidden" name="fpName" value="${link.fpName}"><input type="hidden" name="sid" value="${link.sid}"><button type="submit" class="danger">${t.unlink(`${link.fpName}: ${who}`)}</button></form></li>`;
}

export function linkedBody(view: LinkedView): Html {
  const t = TEXT[view.lang];
  const list = view.links.length
    ? html`<ul class="items">${view.links.map((l) => linkItem(view, l))}</ul>`
    : html`<p>${t.none}</p>`;
  const another = view.unlinked.length
    ? html`<h2>${t.linkAnother}</h2><p class="note">${t.linkWhy}</p>${view.unlinked.map(
        (p) =>
          html`<form method="post" action="/svc/account/linked/link">${csrfField(view.csrf)}<input type="hidden" name="fp" value="${p.fp}"><button type="submit" class="secondary">${t.link(p.name)}</button></form>`,
      )}`
    : html``;
  const problem =
    view.bindError !== undefined
      ? (t.errors[view.bindError] ?? t.errors.other)
      : view.problem && t.problems[view.problem];
  const done = view.bindError === undefined && view.done !== undefined ? t.done[view.done] : undefined;
  return html`${notice(done)}${alert(problem)}
<p class="note">${t.why}</p>${list}${another}`;
}
