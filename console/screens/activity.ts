import { get } from "../api";
import { hourlyBars } from "../chart";
import { field, h, input, section, table, when } from "../dom";
import { lang, t } from "../ui";
import type { Screen } from "./screen";

interface ActivityEvent {
  id: string;
  sbj: string;
  sbjType?: "its";
  ts: number;
  type: string;
  cId: string;
  ip?: string;
  result?: string;
  prms?: Record<string, unknown>;
}

interface Hour {
  start: number;
  signIns: number;
  failedSignIns: number;
  throttled: number;
  registrations: number;
}

const EVENTS = "/admin/api/v3/security-events";
const HOURS = 24;
const PAGE_SIZE = 50;
/** The filters the list takes from the address, as the API names them. */
const FILTERS = ["type", "outcome", "sbj", "cId"] as const;
/** The admin console's own client: its events are operators' actions. */
const CONSOLE_CLIENT = "svc-console";

const hourOf = (start: number) =>
  new Date(start).toLocaleTimeString(lang === "ru" ? "ru-RU" : "en-GB", { hour: "2-digit", minute: "2-digit" });

/** The last day's sign-ins, failures, limits engaged and registrations, each a chart with its total. */
async function dashboard(): Promise<HTMLElement> {
  const { hours, totals } = await get<{ hours: Hour[]; totals: Omit<Hour, "start"> }>(
    `${EVENTS}/summary?hours=${HOURS}`,
  );
  const chart = (
    label: string,
    pick: (hour: Hour) => number,
    kind: "ok" | "refused" | "limited" | "new",
    total: number,
  ) =>
    h(
      "figure",
      { class: "tile" },
      h("figcaption", {}, h("span", {}, label), h("strong", {}, String(total))),
      hourlyBars(
        hours.map((hour) => ({ start: hour.start, count: pick(hour) })),
        kind,
        (sum, busiest) => t.chartText(label, sum, busiest, HOURS),
        hourOf,
      ),
    );
  return section(
    t.lastDay,
    h(
      "div",
      { class: "tiles" },
      chart(t.signIns, (hour) => hour.signIns, "ok", totals.signIns),
      chart(t.failedSignIns, (hour) => hour.failedSignIns, "refused", totals.failedSignIns),
      chart(t.throttled, (hour) => hour.throttled, "limited", totals.throttled),
      chart(t.registrations, (hour) => hour.registrations, "new", totals.registrations),
    ),
    h("p", { class: "hint" }, t.throttledNote),
  );
}

/** The filter form: submitting moves to the address of the filtered list, so the list can be linked. */
function filterForm(query: URLSearchParams): HTMLFormElement {
  const type = input({ name: "type", value: query.get("type") ?? "", autocomplete: "off" });
  const sbj = input({ name: "sbj", value: query.get("sbj") ?? "", autocomplete: "off", spellcheck: "false" });
  const cId = input({ name: "cId", value: query.get("cId") ?? "", autocomplete: "off", spellcheck: "false" });
  const outcome = h(
    "select",
    { name: "outcome" },
    ...[
      ["", t.anyOutcome],
      ["ok", t.outcomeOk],
      ["refused", t.outcomeRefused],
    ].map(([value, label]) => h("option", { value, ...(query.get("outcome") === value && { selected: true }) }, label)),
  );
  const form = h(
    "form",
    { class: "grid", role: "search" },
    field(t.eventType, type),
    field(t.outcome, outcome),
    field(t.account, sbj),
    field(t.application, cId),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit" }, t.filter),
      h("a", { href: `#/activity?cId=${CONSOLE_CLIENT}` }, t.operatorActions),
    ),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, control] of [
      ["type", type],
      ["outcome", outcome],
      ["sbj", sbj],
      ["cId", cId],
    ] as const)
      if (control.value.trim()) next.set(name, control.value.trim());
    location.hash = `#/activity?${next}`;
  });
  return form;
}

/** What an event is about, in one line: the route an operator called and on whom, else its parameters. */
function details(event: ActivityEvent): string {
  const prms = event.prms ?? {};
  const parts = Object.entries(prms).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : String(v)}`);
  return parts.join("; ");
}

/** `#/activity?type=&outcome=&sbj=&cId=&cursor=`: the dashboard, then every account's events, newest first. */
export const activityScreen: Screen = async ({ query }) => {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  for (const name of [...FILTERS, "cursor"]) {
    const value = query.get(name);
    if (value) params.set(name, value);
  }
  const [tiles, page] = await Promise.all([
    dashboard(),
    get<{ events: ActivityEvent[]; next?: string }>(`${EVENTS}?${params}`),
  ]);
  const rows = page.events.map((event) => [
    when(event.ts, lang),
    event.type,
    event.result ?? "",
    event.sbjType === "its" ? event.sbj : h("a", { href: `#/users/${encodeURIComponent(event.sbj)}` }, event.sbj),
    event.cId,
    event.ip ?? "",
    details(event),
  ]);
  const filters = new URLSearchParams();
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value) filters.set(name, value);
  }
  const older = page.next && new URLSearchParams({ ...Object.fromEntries(filters), cursor: page.next });
  const pager = h(
    "nav",
    { class: "pager", "aria-label": t.page },
    query.get("cursor") && h("a", { href: `#/activity?${filters}`, rel: "first" }, t.newest),
    older && h("a", { href: `#/activity?${older}`, rel: "next" }, t.older),
  );
  return {
    title: t.activityTitle,
    body: [
      tiles,
      section(
        t.events,
        filterForm(query),
        table(t.events, [t.when, t.eventType, t.outcome, t.account, t.application, t.address, t.details], rows),
        pager,
      ),
    ],
  };
};
