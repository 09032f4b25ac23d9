import { get } from "../api";
import { field, h, input, section, table, when } from "../dom";
import { lang, t } from "../ui";
import type { Screen } from "./screen";

interface IdentityEvent {
  id: string;
  type: string;
  time: string;
  subject: string;
  data: Record<string, unknown>;
}

const EVENTS = "/admin/api/v3/identity-events";
const PAGE_SIZE = 50;
/** Every type is this and a short name (docs/events.md); the filter takes the short one. */
const TYPE_PREFIX = "svc.identity.";

/** An account's sub links to its page; groups (`grps|…`) and applications (`its|…`) are shown as they are. */
const subjectCell = (subject: string) =>
  subject.includes("|") ? subject : h("a", { href: `#/users/${encodeURIComponent(subject)}` }, subject);

/** The event's data in one line, as published. */
const dataOf = (data: Record<string, unknown>) =>
  Object.entries(data)
    .map(([k, v]) => `${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`)
    .join("; ");

function filterForm(query: URLSearchParams): HTMLFormElement {
  const type = input({ name: "type", value: query.get("type") ?? "", autocomplete: "off", spellcheck: "false" });
  const subject = input({
    name: "subject",
    value: query.get("subject") ?? "",
    autocomplete: "off",
    spellcheck: "false",
  });
  const form = h(
    "form",
    { class: "grid", role: "search" },
    field(t.eventType, type, t.identityTypeHint),
    field(t.subject, subject),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t.filter)),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (type.value.trim()) next.set("type", type.value.trim());
    if (subject.value.trim()) next.set("subject", subject.value.trim());
    location.hash = `#/events?${next}`;
  });
  return form;
}

/** `#/events?type=&subject=&cursor=`: the identity events the stream published, newest first. */
export const eventsScreen: Screen = async ({ query }) => {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  const filters = new URLSearchParams();
  const type = query.get("type");
  if (type) {
    params.set("type", type.startsWith(TYPE_PREFIX) ? type : `${TYPE_PREFIX}${type}`);
    filters.set("type", type);
  }
  const subject = query.get("subject");
  if (subject) {
    params.set("subject", subject);
    filters.set("subject", subject);
  }
  const cursor = query.get("cursor");
  if (cursor) params.set("cursor", cursor);
  const page = await get<{ events: IdentityEvent[]; next?: string }>(`${EVENTS}?${params}`);
  const rows = page.events.map((event) => [
    when(Date.parse(event.time), lang),
    event.type.startsWith(TYPE_PREFIX) ? event.type.slice(TYPE_PREFIX.length) : event.type,
    subjectCell(event.subject),
    dataOf(event.data),
  ]);
  const older = page.next && new URLSearchParams({ ...Object.fromEntries(filters), cursor: page.next });
  return {
    title: t.eventStreamTitle,
    body: [
      section(
        t.eventStreamTitle,
        h("p", { class: "hint" }, t.eventStreamNote),
        filterForm(query),
        table(t.eventStreamTitle, [t.when, t.eventType, t.subject, t.details], rows),
        h(
          "nav",
          { class: "pager", "aria-label": t.page },
          cursor && h("a", { href: `#/events?${filters}`, rel: "first" }, t.newest),
          older && h("a", { href: `#/events?${older}`, rel: "next" }, t.older),
        ),
      ),
    ],
  };
};
