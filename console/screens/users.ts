import { get } from "../api";
import { field, h, input, section, table } from "../dom";
import { filterFor, pagedQuery } from "../rql";
import { t } from "../ui";
import type { Screen } from "./screen";

const PAGE_SIZE = 20;

interface Found {
  instanceId: string;
  attrs: {
    sub: string;
    given_name?: string;
    family_name?: string;
    email?: { value: string };
    phone_number?: { value: string };
  };
}

export const nameOf = (a: { given_name?: string; middle_name?: string; family_name?: string }) =>
  [a.given_name, a.middle_name, a.family_name].filter(Boolean).join(" ");

/** `#/users?q=<text>&rql=<raw>&page=<n>`: the search box, and the results a page at a time. */
export const usersScreen: Screen = async ({ query }) => {
  const text = query.get("q") ?? "";
  const raw = query.get("rql") ?? "";
  const page = Math.max(0, Number(query.get("page") ?? 0) || 0);
  const search = input({ type: "search", name: "q", value: text, autocomplete: "off" });
  const advanced = input({ name: "rql", value: raw, autocomplete: "off", spellcheck: "false" });
  const form = h(
    "form",
    { role: "search", class: "search" },
    field(t.searchText, search),
    field(t.advanced, advanced),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t.search)),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (search.value.trim()) next.set("q", search.value.trim());
    if (advanced.value.trim()) next.set("rql", advanced.value.trim());
    location.hash = `#/users?${next}`;
  });

  const filter = raw.trim() || filterFor(text);
  if (!filter) return { title: t.usersTitle, body: [form] };
  const found = await get<Found[]>(
    `/api/v3/users?${new URLSearchParams({ query: pagedQuery(filter, page, PAGE_SIZE) })}`,
  );
  const shown = found.slice(0, PAGE_SIZE);
  const pageLink = (n: number, label: string, rel: string) => {
    const at = new URLSearchParams(query);
    at.set("page", String(n));
    return h("a", { href: `#/users?${at}`, rel }, label);
  };
  const results = shown.length
    ? table(
        t.results,
        [t.sub, t.name, t.email, t.phone],
        shown.map(({ attrs }) => [
          h("a", { href: `#/users/${encodeURIComponent(attrs.sub)}` }, attrs.sub),
          nameOf(attrs),
          attrs.email?.value,
          attrs.phone_number?.value,
        ]),
      )
    : h("p", {}, t.noResults);
  const pager = h(
    "nav",
    { class: "pager", "aria-label": t.page },
    page > 0 && pageLink(page - 1, t.previous, "prev"),
    h("span", {}, `${t.page} ${page + 1}`),
    found.length > PAGE_SIZE && pageLink(page + 1, t.next, "next"),
  );
  return { title: t.usersTitle, body: [form, section(t.results, results, pager)] };
};
