/** Building the DOM without a framework (docs/decisions/console-ui.md): elements, labelled fields, tables. */

export type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** An element with attributes (`on<event>` props become listeners) and children; text is never parsed as HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else if (value !== false && value !== undefined) element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

let ids = 0;
/** A fresh id for a label's `for` or an `aria-labelledby`. */
export const newId = (prefix: string) => `${prefix}-${++ids}`;

/** A control with its visible label. */
export function field(
  label: string,
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  control.id ||= newId("f");
  const hintEl = hint ? h("p", { class: "hint", id: newId("hint") }, hint) : undefined;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  if (control instanceof HTMLInputElement && (control.type === "checkbox" || control.type === "radio"))
    return h("div", { class: "check" }, control, h("label", { for: control.id }, label), hintEl);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hintEl);
}

export function input(props: Props = {}): HTMLInputElement {
  return h("input", { type: "text", ...props });
}

export function checkbox(checked: boolean, props: Props = {}): HTMLInputElement {
  const box = h("input", { type: "checkbox", ...props });
  box.checked = checked;
  return box;
}

/** A titled section whose heading names it for assistive technology. */
export function section(title: string, ...children: (Child | Child[])[]): HTMLElement {
  const id = newId("s");
  return h("section", { "aria-labelledby": id }, h("h2", { id }, title), ...children);
}

/** A table with a header row; `caption` names it; no rows show a dash, so an empty list reads as one. */
export function table(caption: string, head: string[], rows: Child[][]): HTMLTableElement {
  const body = rows.length
    ? rows.map((row) => h("tr", {}, ...row.map((cell) => h("td", {}, cell))))
    : [h("tr", {}, h("td", { colspan: head.length }, "—"))];
  return h(
    "table",
    {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...head.map((cell) => h("th", { scope: "col" }, cell)))),
    h("tbody", {}, ...body),
  );
}

/** A Unix time (seconds or milliseconds) in the page's language. */
export function when(time: number | undefined, lang: string): string {
  if (!time) return "";
  const ms = time > 1e12 ? time : time * 1000;
  return new Date(ms).toLocaleString(lang === "ru" ? "ru-RU" : "en-GB");
}

/** The lines of a text area, trimmed, empty ones dropped. */
export const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/** Words separated by spaces. */
export const words = (text: string) => text.split(/\s+/).filter(Boolean);
