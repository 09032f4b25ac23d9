import { del, get, put, seg } from "../api";
import { field, h, input, section, table, words } from "../dom";
import { changeButton, changeForm, say, t } from "../ui";
import type { Screen } from "./screen";

interface Definition {
  name: string;
  description?: string;
  subjectTypes: string[];
  objectTypes: string[];
  builtin?: boolean;
}

type Kind = "user" | "its" | "grps";

function kindSelect(name: string, kinds: Kind[], selected: string): HTMLSelectElement {
  const label = { user: t.kindUser, its: t.kindApp, grps: t.kindGroup };
  return h(
    "select",
    { name },
    ...kinds.map((kind) => h("option", { value: kind, ...(kind === selected && { selected: true }) }, label[kind])),
  );
}

/** The read paths of §4.3 for a party of each kind. */
function lookupPath(direction: "of" | "on", kind: string, id: string, profile: string): string {
  if (kind === "its") return `/api/v3/rights/${direction}/its/${seg(id)}`;
  if (kind === "grps") return `/api/v3/rights/on/grps/${seg(id)}?${new URLSearchParams({ objectExt: profile })}`;
  return `/api/v3/rights/${direction}/${seg(id)}`;
}

/** Object key -> right -> tags (rights of a subject), or subject key -> rights (rights on an object), as rows. */
function rowsOf(answer: Record<string, Record<string, string[]> | string[]>): string[][] {
  return Object.entries(answer).flatMap(([party, rights]) =>
    Array.isArray(rights)
      ? [[party, rights.join(", "), ""]]
      : Object.entries(rights).map(([right, tags]) => [party, right, tags.join(", ")]),
  );
}

/**
 * `#/rights?dir=of|on&kind=&id=&profile=`: the catalogue, the grants of a subject or on an
 * object with their tags, and a form that grants or revokes tags (§4.3).
 */
export const rightsScreen: Screen = async ({ query }) => {
  const catalogue = await get<Definition[]>("/admin/api/v3/rights");
  const dir = query.get("dir") === "on" ? "on" : "of";
  const kind = query.get("kind") ?? "user";
  const id = query.get("id") ?? "";
  const profile = query.get("profile") ?? "";

  const dirBox = h(
    "select",
    { name: "dir" },
    h("option", { value: "of", ...(dir === "of" && { selected: true }) }, t.bySubject),
    h("option", { value: "on", ...(dir === "on" && { selected: true }) }, t.byObject),
  );
  const kindBox = kindSelect("kind", ["user", "its", "grps"], kind);
  const idBox = input({ name: "id", value: id, required: true, autocomplete: "off" });
  const profileBox = input({ name: "profile", value: profile, autocomplete: "off" });
  const lookup = h(
    "form",
    { role: "search", class: "grid" },
    field(t.lookUp, dirBox),
    field(t.partyKind, kindBox),
    field(t.sub, idBox),
    field(t.groupProfile, profileBox),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t.lookUp)),
  );
  lookup.addEventListener("submit", (event) => {
    event.preventDefault();
    const next = { dir: dirBox.value, kind: kindBox.value, id: idBox.value.trim(), profile: profileBox.value.trim() };
    location.hash = `#/rights?${new URLSearchParams(next)}`;
  });
  const found = id
    ? table(
        dir === "of" ? t.bySubject : t.byObject,
        [dir === "of" ? t.object : t.subject, t.rights, t.tags],
        rowsOf(await get(lookupPath(dir, kind, id, profile))),
      )
    : undefined;

  const subject = input({ name: "subject", required: true, autocomplete: "off" });
  const subjectKind = kindSelect("subjectType", ["user", "its"], "user");
  const object = input({ name: "object", required: true, autocomplete: "off" });
  const objectKind = kindSelect("objectType", ["user", "its", "grps"], "user");
  const objectExt = input({ name: "objectExt", autocomplete: "off" });
  const names = input({ name: "rights", required: true, autocomplete: "off" });
  const tags = input({ name: "tags", autocomplete: "off" });
  const body = () => ({
    subject: subject.value.trim(),
    ...(subjectKind.value === "its" && { subjectType: "its" }),
    object: object.value.trim(),
    ...(objectKind.value !== "user" && { objectType: objectKind.value }),
    ...(objectKind.value === "grps" && { objectExt: objectExt.value.trim() }),
    rights: words(names.value),
    ...(words(tags.value).length && { tags: words(tags.value) }),
  });
  const grantForm = h(
    "form",
    { class: "grid" },
    field(`${t.subject}: ${t.partyKind}`, subjectKind),
    field(t.subject, subject),
    field(`${t.object}: ${t.partyKind}`, objectKind),
    field(t.object, object),
    field(t.groupProfile, objectExt),
    field(t.rightNames, names),
    field(t.tagsField, tags),
  );
  changeForm(grantForm, t.grant, async () => {
    await put("/api/v3/rights", body());
    say(t.granted);
  });
  grantForm.querySelector(".actions")?.append(
    changeButton(t.revoke, async () => {
      if (!grantForm.reportValidity()) return;
      await del("/api/v3/rights", body());
      say(t.revoked);
    }),
  );

  return {
    title: t.rightsTitle,
    body: [
      section(
        t.catalogue,
        table(
          t.catalogue,
          [t.name, t.description, t.appliesTo],
          catalogue.map((d) => [
            d.name,
            d.description ?? "",
            `${d.subjectTypes.join(", ")} → ${d.objectTypes.join(", ")}`,
          ]),
        ),
      ),
      section(t.lookUp, lookup, found),
      section(t.grantRevoke, grantForm),
    ],
  };
};
