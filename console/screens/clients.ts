import { del, get, post, seg } from "../api";
import { checkbox, field, h, input, lines, section, table, words } from "../dom";
import { changeButton, changeForm, confirmDialog, goTo, say, showSecret, t } from "../ui";
import { rerender, type Screen } from "./screen";

interface Client {
  clientId: string;
  public: boolean;
  firstParty: boolean;
  scopes: string[];
  grantTypes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  bootstrap?: boolean;
  clientSecret?: string;
}

const ADMIN = "/admin/api/v3/clients";
const PAGE_SIZE = 20;
/** The grants an operator picks from (docs/interface.md §4.17); the others stay with svc-admin. */
const GRANTS = [
  "authorization_code",
  "refresh_token",
  "client_credentials",
  "urn:ietf:params:oauth:grant-type:device_code",
  "urn:ietf:params:oauth:grant-type:token-exchange",
  "password",
];

/** `#/clients?after=<id>`: the applications, a page at a time. */
export const clientsScreen: Screen = async ({ query }) => {
  const after = query.get("after");
  const params = new URLSearchParams({ limit: String(PAGE_SIZE), ...(after && { after }) });
  const { clients, next } = await get<{ clients: Client[]; next?: string }>(`${ADMIN}?${params}`);
  const list = table(
    t.clientsTitle,
    [t.clientId.replace(/ \(.*\)$/, ""), t.clientKind, t.grantTypes],
    clients.map((c) => [
      h("a", { href: `#/clients/${encodeURIComponent(c.clientId)}` }, c.clientId),
      c.public ? t.publicClient : t.confidentialClient,
      c.grantTypes.join(", "),
    ]),
  );
  const pager = h(
    "nav",
    { class: "pager", "aria-label": t.page },
    after && h("a", { href: "#/clients", rel: "first" }, t.previous),
    next && h("a", { href: `#/clients?${new URLSearchParams({ after: next })}`, rel: "next" }, t.next),
  );
  return {
    title: t.clientsTitle,
    body: [h("p", {}, h("a", { href: "#/clients/new", class: "button" }, t.newClient)), list, pager],
  };
};

/** The fields of a client, filled from `client` when editing. */
function clientForm(client: Client | undefined) {
  const id = input({ name: "clientId", autocomplete: "off", spellcheck: "false" });
  const isPublic = checkbox(client?.public ?? false, { name: "public" });
  const grantBoxes = GRANTS.map((grant) => checkbox(client?.grantTypes.includes(grant) ?? false, { value: grant }));
  const grants = h("fieldset", {}, h("legend", {}, t.grantTypes), ...grantBoxes.map((box) => field(box.value, box)));
  const scopes = h("textarea", { name: "scopes", rows: 2 });
  scopes.value = (client?.scopes ?? ["openid", "profile"]).join(" ");
  const redirects = h("textarea", { name: "redirectUris", rows: 3 });
  redirects.value = (client?.redirectUris ?? []).join("\n");
  const logouts = h("textarea", { name: "postLogoutRedirectUris", rows: 2 });
  logouts.value = (client?.postLogoutRedirectUris ?? []).join("\n");
  const firstParty = checkbox(client?.firstParty ?? false, { name: "firstParty" });
  const form = h(
    "form",
    { class: "grid" },
    !client && field(t.clientId, id),
    !client && field(t.publicClient, isPublic),
    grants,
    field(t.scopes, scopes),
    field(t.redirectUris, redirects),
    field(t.postLogoutUris, logouts),
    field(t.firstParty, firstParty),
  );
  const values = () => {
    const grantTypes = grantBoxes.filter((box) => box.checked).map((box) => box.value);
    return {
      scopes: words(scopes.value),
      ...(grantTypes.length && { grantTypes }),
      redirectUris: lines(redirects.value),
      postLogoutRedirectUris: lines(logouts.value),
      firstParty: firstParty.checked,
    };
  };
  return { form, values, id, isPublic };
}

/** `#/clients/new`: a new application; a confidential one's secret is shown once. */
export const newClientScreen: Screen = async () => {
  const { form, values, id, isPublic } = clientForm(undefined);
  changeForm(form, t.create, async () => {
    const body = { ...values(), public: isPublic.checked, ...(id.value.trim() && { clientId: id.value.trim() }) };
    const created = await post<Client>(ADMIN, body);
    if (created.clientSecret) await showSecret(created.clientSecret);
    goTo(`#/clients/${encodeURIComponent(created.clientId)}`, t.saved);
  });
  return { title: t.newClient, body: [h("p", {}, h("a", { href: "#/clients" }, t.backToClients)), form] };
};

/** `#/clients/<id>`: change it, rotate its secret, delete it. */
export const clientScreen: Screen = async ({ params }) => {
  const clientId = params[0] ?? "";
  const path = `${ADMIN}/${seg(clientId)}`;
  const client = await get<Client>(path);
  const { form, values } = clientForm(client);
  changeForm(form, t.save, async () => {
    await post(path, values());
    await rerender();
    say(t.saved);
  });
  const rotate =
    !client.public &&
    changeButton(t.rotateSecret, async () => {
      const { clientSecret } = await post<{ clientSecret: string }>(`${path}/secret/rotate`);
      await showSecret(clientSecret);
    });
  const remove = changeButton(
    t.delete,
    async () => {
      if (!(await confirmDialog(t.confirmDelete, t.delete))) return;
      await del(path);
      goTo("#/clients", t.clientDeleted);
    },
    { class: "danger" },
  );
  return {
    title: `${t.clients}: ${client.clientId}`,
    body: [
      h("p", {}, h("a", { href: "#/clients" }, t.backToClients)),
      h("p", {}, `${t.clientKind}: ${client.public ? t.publicClient : t.confidentialClient}`),
      form,
      section(t.clientActions, h("div", { class: "actions" }, rotate, remove)),
    ],
  };
};
