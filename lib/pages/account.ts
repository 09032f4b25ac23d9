import { html } from "./html";
import { alert, type FormState, hidden, layout, notice, PASSKEY_SCRIPT, passkeyForm } from "./parts";
import { type Language, TEXT } from "./text";

/** A passkey as the account page lists it. */
export interface AccountPasskey {
  id: string;
  name: string;
  createdAt: number;
  lastUsed?: number;
  backedUp: boolean;
}

const dateOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

export interface AccountView {
  lang: Language;
  state: FormState;
  passkeys: readonly AccountPasskey[];
  creationOptions: string;
  confirm: boolean;
  /** How many recovery codes are left; `newCodes` a set just made, shown this once. */
  recovery: { remaining: number; newCodes?: readonly string[] };
  notice?: string;
  problem?: string;
}

/**
 * The signed-in user's passkeys: each with a delete form, and a form that enrols a new one.
 * `confirm` asks for the password with each change when the sign-in is not recent.
 */
export function accountPage(view: AccountView): string {
  const t = TEXT[view.lang];
  const password = (id: string) =>
    view.confirm
      ? html`<label for="${id}">${t.confirmPassword}</label>
<input id="${id}" name="password" type="password" autocomplete="current-password" required>`
      : html``;
  const rows = view.passkeys.map(
    (p, i) => html`<li><strong>${p.name}</strong> <span class="note">${t.passkeyCreated(dateOf(p.createdAt))}${
      p.lastUsed === undefined ? "" : `, ${t.passkeyLastUsed(dateOf(p.lastUsed))}`
    }${p.backedUp ? `, ${t.passkeySynced}` : ""}</span>
<form method="post" action="/svc/oauth/account/passkeys/delete">${hidden(view.state)}<input type="hidden" name="id" value="${p.id}">${password(`password-${i}`)}<button type="submit">${t.deletePasskey(p.name)}</button></form></li>`,
  );
  const list = rows.length ? html`<ul>${rows}</ul>` : html`<p>${t.noPasskeys}</p>`;
  const add = passkeyForm(
    "create",
    view.creationOptions,
    "/svc/oauth/account/passkeys",
    html`${hidden(view.state)}<label for="name">${t.passkeyName}</label>
<input id="name" name="name" autocomplete="off" maxlength="64">
${password("password-new")}`,
    { label: t.addPasskey, failed: t.passkeyMissing },
  );
  const { newCodes, remaining } = view.recovery;
  const recovery = html`<h2>${t.recoveryTitle}</h2>
${
  newCodes
    ? html`<p role="status">${t.recoveryShownOnce}</p><ol class="codes">${newCodes.map((c) => html`<li><code>${c}</code></li>`)}</ol>`
    : html`<p>${t.recoveryRemaining(remaining)}</p>`
}
<form method="post" action="/svc/oauth/account/recovery-codes">${hidden(view.state)}${password("password-codes")}<button type="submit">${t.recoveryCreate}</button></form>`;
  return layout(
    view.lang,
    t.accountTitle,
    html`${notice(view.notice)}${alert(view.problem)}${list}${add}${recovery}${PASSKEY_SCRIPT}`,
  );
}
