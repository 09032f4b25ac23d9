import { del, get, post, seg } from "../api";
import { field, h, input, section, table } from "../dom";
import { changeButton, changeForm, confirmDialog, goTo, say, t } from "../ui";
import { rerender, type Screen } from "./screen";

interface Group {
  id: string;
  profile: string;
  instanceId: string;
  [attribute: string]: unknown;
}
interface Member {
  subjectId: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
}

const GROUPS = "/api/v2/grps";
const PAGE_SIZE = 20;
const RESERVED = new Set(["id", "profile", "instanceId"]);

/** The search form of a groups list: the profile (when asked) and an RQL filter; `go` makes the address. */
export function groupSearch(
  filter: string,
  go: (filter: string, profile: string) => string,
  profile?: string,
): HTMLFormElement {
  const profileBox =
    profile === undefined ? undefined : input({ name: "profile", value: profile, required: true, autocomplete: "off" });
  const filterBox = input({ name: "rql", value: filter, autocomplete: "off", spellcheck: "false" });
  const form = h(
    "form",
    { role: "search", class: "search" },
    profileBox && field(t.profile, profileBox),
    field(t.groupFilter, filterBox),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t.show)),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = go(filterBox.value.trim(), profileBox?.value.trim() ?? "");
  });
  return form;
}

/** A page of a profile's groups (`limit` one more than shown tells whether a next page exists), and its pager. */
export async function groupList(
  profile: string,
  filter: string,
  page: number,
  links: { caption: string; item: (id: string) => string; page: (n: number) => string },
): Promise<Node[]> {
  const limit = `limit(${PAGE_SIZE + 1},${page * PAGE_SIZE})`;
  const rql = filter ? `(${filter})&${limit}` : limit;
  const found = await get<Group[]>(`${GROUPS}?${new URLSearchParams({ profile, rql, expand: "true" })}`);
  return [
    table(
      links.caption,
      [t.groupId, t.name],
      found
        .slice(0, PAGE_SIZE)
        .map((g) => [h("a", { href: links.item(g.id) }, g.id), typeof g.name === "string" ? g.name : ""]),
    ),
    h(
      "nav",
      { class: "pager", "aria-label": `${links.caption}: ${t.page}` },
      page > 0 && h("a", { href: links.page(page - 1) }, t.previous),
      h("span", {}, `${t.page} ${page + 1}`),
      found.length > PAGE_SIZE && h("a", { href: links.page(page + 1) }, t.next),
    ),
  ];
}

/** `#/groups?profile=<p>&rql=<filter>&page=<n>`: a profile's groups, a page at a time. */
export const groupsScreen: Screen = async ({ query }) => {
  const profile = query.get("profile") ?? "org";
  const filter = query.get("rql") ?? "";
  const page = Math.max(0, Number(query.get("page") ?? 0) || 0);
  const address = (rql: string, p: string, n?: number) =>
    `#/groups?${new URLSearchParams({ profile: p, ...(rql && { rql }), ...(n !== undefined && { page: String(n) }) })}`;
  return {
    title: t.groupsTitle,
    body: [
      groupSearch(filter, address, profile),
      ...(await groupList(profile, filter, page, {
        caption: t.groupsTitle,
        item: (id) => `#/groups/${encodeURIComponent(profile)}/${encodeURIComponent(id)}`,
        page: (n) => address(filter, profile, n),
      })),
      section(t.newGroup, newGroupForm(profile)),
    ],
  };
};

/** Attributes as a JSON object, so every type the profile allows (strings, numbers, booleans) can be typed. */
function attributesOf(text: string): Record<string, unknown> {
  const parsed = JSON.parse(text.trim() || "{}") as unknown;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(t.groupAttributes);
  return parsed as Record<string, unknown>;
}

function newGroupForm(profile: string): HTMLFormElement {
  const id = input({ name: "id", required: true, autocomplete: "off" });
  const attributes = h("textarea", { name: "attributes", rows: 3 });
  attributes.value = '{"name": ""}';
  const form = h("form", { class: "grid" }, field(t.groupId, id), field(t.groupAttributes, attributes));
  return changeForm(form, t.create, async () => {
    await post(`${GROUPS}?${new URLSearchParams({ profile })}`, {
      ...attributesOf(attributes.value),
      profile,
      id: id.value.trim(),
    });
    goTo(`#/groups/${encodeURIComponent(profile)}/${encodeURIComponent(id.value.trim())}`, t.saved);
  });
}

/** `#/groups/<profile>/<id>`: its attributes, members and the rights held on it. */
export const groupScreen: Screen = async ({ params }) => {
  const [profile = "", id = ""] = params;
  const at = (suffix = "", extra: Record<string, string> = {}) =>
    `${GROUPS}/${seg(id)}${suffix}?${new URLSearchParams({ profile, ...extra })}`;
  const [group, members, rights] = await Promise.all([
    get<Group>(at("", { expand: "true" })),
    get<Member[]>(at("/members", { expand: "true", limit: "1000" })),
    get<Record<string, string[]>>(`/api/v3/rights/on/grps/${seg(id)}?${new URLSearchParams({ objectExt: profile })}`),
  ]);
  const own = Object.fromEntries(Object.entries(group).filter(([name]) => !RESERVED.has(name)));
  const attributes = h("textarea", { name: "attributes", rows: 4 });
  attributes.value = JSON.stringify(own, null, 2);
  const edit = changeForm(h("form", {}, field(t.groupAttributes, attributes)), t.save, async () => {
    const next = attributesOf(attributes.value);
    // Fields left out of the text are removed (null), the rest replace (§4.8).
    const removed = Object.fromEntries(
      Object.keys(own)
        .filter((k) => !(k in next))
        .map((k) => [k, null]),
    );
    await post(at(), { ...removed, ...next, profile });
    await rerender();
    say(t.saved);
  });
  const memberSub = input({ name: "subjectId", required: true, autocomplete: "off" });
  const add = changeForm(h("form", { class: "inline" }, field(t.memberSub, memberSub)), t.addMember, async () => {
    await post(at("/members/add"), [{ subjectId: memberSub.value.trim() }]);
    await rerender();
    say(t.saved);
  });
  const memberRows = members.map((m) => [
    h("a", { href: `#/users/${encodeURIComponent(m.subjectId)}` }, m.subjectId),
    [m.given_name, m.middle_name, m.family_name].filter(Boolean).join(" "),
    changeButton(
      t.remove,
      async () => {
        await post(at("/members/rm"), [{ subjectId: m.subjectId }]);
        await rerender();
        say(t.saved);
      },
      { "aria-label": `${t.remove}: ${m.subjectId}` },
    ),
  ]);
  const remove = changeButton(
    t.delete,
    async () => {
      if (!(await confirmDialog(t.confirmDeleteGroup, t.delete))) return;
      await del(at());
      goTo(`#/groups?${new URLSearchParams({ profile })}`, t.groupDeleted);
    },
    { class: "danger" },
  );
  return {
    title: `${t.groups}: ${id}`,
    body: [
      h("p", {}, h("a", { href: `#/groups?${new URLSearchParams({ profile })}` }, t.backToGroups)),
      h("p", {}, `${t.profile}: ${profile}`),
      section(t.groupAttributes, edit),
      section(t.members, table(t.members, [t.sub, t.name, ""], memberRows), add),
      section(
        t.rightsOnGroup,
        table(
          t.rightsOnGroup,
          [t.subject, t.rights],
          Object.entries(rights).map(([subject, names]) => [subject, names.join(", ")]),
        ),
      ),
      section(t.delete, h("div", { class: "actions" }, remove)),
    ],
  };
};
