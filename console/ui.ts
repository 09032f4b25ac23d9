import { ApiProblem } from "./api";
import { operator, startAuthorization } from "./auth";
import { type Child, h } from "./dom";
import { DICTIONARIES, type Language, languageOf, type Texts } from "./i18n";
import { rerender } from "./screens/screen";

/** The page's language, the words in it, and the live regions every screen reports in. */

export let lang: Language = languageOf(document.documentElement.lang);
export let t: Texts = DICTIONARIES[lang];

export function setLanguage(next: Language): void {
  lang = next;
  t = DICTIONARIES[next];
  document.documentElement.lang = next;
}

/** Polite news (a change went through) and errors (role=alert), both announced by screen readers. */
export const notice = h("div", { class: "notice", role: "status", "aria-live": "polite" });
export const problem = h("div", { class: "problem", role: "alert" });

export function say(message: string): void {
  problem.replaceChildren();
  notice.textContent = message;
}

/** Shows a failure; a re-authentication request gets its "Confirm it's you" button. */
export function complain(error: unknown): void {
  notice.textContent = "";
  if (error instanceof ApiProblem && error.reauth) {
    problem.replaceChildren(
      h("p", {}, t.reauth),
      h(
        "button",
        {
          type: "button",
          onclick: () => void startAuthorization({ returnTo: location.hash, maxAge: 0, lang }),
        },
        t.confirmItsYou,
      ),
    );
    return;
  }
  const prefix = error instanceof ApiProblem && error.refused ? t.refused : t.failed;
  problem.replaceChildren(h("p", {}, `${prefix} ${(error as Error).message}`));
}

let pending: string | undefined;

/** Goes to another screen and says `message` there (a hash change clears the old screen's messages). */
export function goTo(hash: string, message: string): void {
  pending = message;
  location.hash = hash;
}

/** The message goTo left for the screen just drawn. */
export function sayPending(): void {
  if (pending) say(pending);
  pending = undefined;
}

export const clearMessages = () => {
  notice.textContent = "";
  problem.replaceChildren();
};

/** Whether this operator may change anything (the API refuses a read-only one anyway). */
export const mayChange = () => operator()?.role === "admin";

const READ_ONLY_NOTE = "read-only-note";

/**
 * A button that changes something: disabled for a read-only operator, with the reason read
 * out. The action's errors land in the live region; the button is busy while it runs.
 */
export function changeButton(
  label: string,
  action: () => Promise<void>,
  props: Record<string, string> = {},
): HTMLButtonElement {
  const readOnly = !mayChange();
  const button = h(
    "button",
    { type: "button", ...props, ...(readOnly && { disabled: true, "aria-describedby": READ_ONLY_NOTE }) },
    label,
  );
  button.addEventListener("click", () => void run(button, action));
  return button;
}

/** A form's submit: same rules as changeButton, the form's own submit event. */
export function changeForm(
  form: HTMLFormElement,
  submitLabel: string,
  action: () => Promise<void>,
  options: { readsOnly?: boolean; focus?: string } = {},
): HTMLFormElement {
  const readOnly = !options.readsOnly && !mayChange();
  const submit = h(
    "button",
    {
      type: "submit",
      // The redraw after the change gives focus back to this button (main.ts).
      ...(options.focus && { "data-focus": options.focus }),
      ...(readOnly && { disabled: true, "aria-describedby": READ_ONLY_NOTE }),
    },
    submitLabel,
  );
  form.append(h("div", { class: "actions" }, submit));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void run(submit, action);
  });
  return form;
}

export async function run(button: HTMLButtonElement, action: () => Promise<void>): Promise<void> {
  clearMessages();
  button.setAttribute("aria-busy", "true");
  try {
    await action();
  } catch (error) {
    complain(error);
  } finally {
    button.removeAttribute("aria-busy");
  }
}

/** The explanation disabled change buttons point at. */
export function readOnlyNote(): HTMLElement | undefined {
  return mayChange() ? undefined : h("p", { id: READ_ONLY_NOTE, class: "hint read-only" }, t.readOnly);
}

/** A modal question (a <dialog>: it traps focus and gives it back); resolves true when confirmed. */
export function confirmDialog(question: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      "dialog",
      { "aria-label": question },
      h("p", {}, question),
      h(
        "form",
        { method: "dialog", class: "actions" },
        h("button", { type: "submit", value: "cancel", autofocus: true }, t.cancel),
        h("button", { type: "submit", value: "yes", class: "danger" }, confirmLabel),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "yes");
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** One read per part of a screen; a part that fails says so in its own section. */
export async function settled<T>(read: Promise<T>): Promise<T | Error> {
  return read.catch((error: Error) => error);
}

export function part<T>(value: T | Error, render: (v: T) => Child | Child[]): Child | Child[] {
  return value instanceof Error ? h("p", { class: "problem-inline" }, `${t.failed} ${value.message}`) : render(value);
}

/** A change, then the screen as the API holds it afterwards, and `message` said. */
export const changed = (message: string, change: () => Promise<unknown>) => async () => {
  await change();
  await rerender();
  say(message);
};

/** An action that asks `question` first and runs only when confirmed. */
export const confirmed = (question: string, confirmLabel: string, action: () => Promise<void>) => async () => {
  if (await confirmDialog(question, confirmLabel)) await action();
};

/** Copies `text`; where the clipboard is refused, selects `fallback` for Ctrl+C. */
export function copyButton(text: string, fallback: HTMLInputElement, label = t.copy): HTMLButtonElement {
  const done = () => say(t.copied);
  return h(
    "button",
    { type: "button", onclick: () => void navigator.clipboard.writeText(text).then(done, () => fallback.select()) },
    label,
  );
}

/** Shows a secret once, with a copy button; it is in no storage and gone when closed. */
export function showSecret(secret: string, label = t.secretLabel): Promise<void> {
  return new Promise((resolve) => {
    const value = h("input", { type: "text", readonly: true, value: secret, class: "secret", id: "secret-value" });
    const copied = h("p", { role: "status", "aria-live": "polite" });
    const dialog = h(
      "dialog",
      { "aria-labelledby": "secret-once" },
      h("p", { id: "secret-once" }, t.secretOnce),
      h("label", { for: value.id }, label),
      value,
      copied,
      h(
        "div",
        { class: "actions" },
        h(
          "button",
          {
            type: "button",
            onclick: () =>
              void navigator.clipboard.writeText(secret).then(
                () => (copied.textContent = t.copied),
                () => value.select(),
              ),
          },
          t.copy,
        ),
        h("form", { method: "dialog" }, h("button", { type: "submit", autofocus: true }, t.close)),
      ),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
