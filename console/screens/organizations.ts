import { ApiProblem, del, get, post, put, seg } from "../api";
import { type Child, checkbox, field, h, input, newId, section, table, when, words } from "../dom";
import {
  changeButton,
  changed,
  changeForm,
  confirmed,
  copyButton,
  goTo,
  lang,
  part,
  say,
  settled,
  showSecret,
  t,
} from "../ui";
import { groupList, groupSearch } from "./groups";
import { rerender, type Screen } from "./screen";

/** Organizations (docs/organizations.md): groups of profile org, with their members, invitations, domains and SSO. */

interface MembersPage {
  members: { subjectId: string; given_name?: string; middle_name?: string; family_name?: string; roles: string[] }[];
  next?: string;
}
interface InvitationsPage {
  invitations: { invitationId: string; email: string; roles: string[]; language: string; expiresAt: string }[];
  next?: string;
}
interface Domain {
  domain: string;
  state: "pending" | "verified";
  policy: Policy;
  txt: { name: string; value: string };
  verifiedAt?: number;
  checkedAt?: number;
}
type Policy = "none" | "join" | "sso";
/** The SCIM connection as the API shows it: never its token, which is shown once when taken. */
interface Scim {
  baseUrl: string;
  tokenHint: string;
  createdAt: number;
  rotatedAt: number;
}
interface Sso {
  issuer: string;
  clientId: string;
  scopes: string[];
  claims: Record<string, string>;
  defaultRoles: string[];
  enabled: boolean;
  callbackUrl: string;
}

const PROFILE = "org";
const LANGUAGES = { ru: "Русский", en: "English" };
const MEMBERS_PAGE = 50;
const CLAIMS = ["email", "emailVerified", "givenName", "familyName"] as const;
const orgHash = (id: string) => `#/orgs/${encodeURIComponent(id)}`;

/** `#/orgs?rql=<filter>&page=<n>`: the organizations, a page at a time, and a new one. */
export const orgsScreen: Screen = async ({ query }) => {
  const filter = query.get("rql") ?? "";
  const page = Math.max(0, Number(query.get("page") ?? 0) || 0);
  const id = input({ name: "id", required: true, autocomplete: "off" });
  const name = input({ name: "name", autocomplete: "off" });
  const create = changeForm(
    h("form", { class: "grid" }, field(t.orgId, id), field(t.name, name)),
    t.create,
    async () => {
      const orgId = id.value.trim();
      await post(`/api/v2/grps?${new URLSearchParams({ profile: PROFILE })}`, {
        profile: PROFILE,
        id: orgId,
        ...(name.value.trim() && { name: name.value.trim() }),
      });
      goTo(orgHash(orgId), t.orgCreated);
    },
  );
  return {
    title: t.orgsTitle,
    body: [
      groupSearch(filter, (rql) => `#/orgs${rql ? `?${new URLSearchParams({ rql })}` : ""}`),
      ...(await groupList(PROFILE, filter, page, {
        caption: t.orgsTitle,
        item: orgHash,
        page: (n) => `#/orgs?${new URLSearchParams({ ...(filter && { rql: filter }), page: String(n) })}`,
      })),
      section(t.newOrg, create),
    ],
  };
};

/** `#/orgs/<id>?members=<cursor>&invitations=<cursor>`: one organization and what an operator does to it. */
export const orgScreen: Screen = async ({ params, query }) => {
  const id = params[0] ?? "";
  const base = `/api/v3/orgs/${seg(id)}`;
  const paged = (name: string, limit: number) => {
    const cursor = query.get(name);
    return new URLSearchParams({ limit: String(limit), ...(cursor && { cursor }) });
  };
  const org = await get<{ name?: unknown }>(base);
  const [members, invitations, domains, sso, scim] = await Promise.all([
    settled(get<MembersPage>(`${base}/members?${paged("members", MEMBERS_PAGE)}`)),
    settled(get<InvitationsPage>(`${base}/invitations?${paged("invitations", MEMBERS_PAGE)}`)),
    settled(get<{ domains: Domain[] }>(`${base}/domains`)),
    // No connection answers 404 sso_not_configured; the organization itself was just read.
    settled(
      get<Sso>(`${base}/sso`).catch((e) =>
        e instanceof ApiProblem && e.status === 404 ? undefined : Promise.reject(e),
      ),
    ),
    // No connection answers 404 scim_not_configured.
    settled(
      get<Scim>(`${base}/scim`).catch((e) =>
        e instanceof ApiProblem && e.status === 404 ? undefined : Promise.reject(e),
      ),
    ),
  ]);
  const pager = (name: string, label: string, next?: string) => {
    const link = (cursor?: string) => {
      const q = new URLSearchParams(query);
      if (cursor) q.set(name, cursor);
      else q.delete(name);
      return `${orgHash(id)}${String(q) ? `?${q}` : ""}`;
    };
    return (
      (query.get(name) || next) &&
      h(
        "nav",
        { class: "pager", "aria-label": `${label}: ${t.page}` },
        query.get(name) && h("a", { href: link() }, t.firstPage),
        next && h("a", { href: link(next) }, t.next),
      )
    );
  };
  return {
    title: `${t.organization}: ${typeof org.name === "string" && org.name ? org.name : id}`,
    body: [
      h(
        "p",
        {},
        h("a", { href: "#/orgs" }, t.backToOrgs),
        " · ",
        h("a", { href: `#/groups/${PROFILE}/${encodeURIComponent(id)}` }, t.orgAsGroup),
      ),
      section(
        t.members,
        part(members, (page) => [membersTable(base, page), pager("members", t.members, page.next)]),
        addMemberForm(base),
      ),
      section(
        t.invitations,
        part(invitations, (page) => [invitationsTable(base, page), pager("invitations", t.invitations, page.next)]),
        inviteForm(base),
      ),
      section(
        t.domains,
        h("p", { class: "hint" }, t.domainsHint),
        part(domains, (list) => list.domains.map((d) => domainPart(base, d))),
        claimForm(base),
      ),
      section(
        t.sso,
        part(sso, (connection) => ssoPart(base, connection)),
      ),
      section(
        t.scim,
        part(scim, (connection) => scimPart(base, connection)),
      ),
    ],
  };
};

const roleField = (value = "", props: Record<string, string> = {}) =>
  input({ name: "roles", value, autocomplete: "off", spellcheck: "false", ...props });

function membersTable(base: string, page: MembersPage): HTMLTableElement {
  return table(
    t.members,
    [t.sub, t.name, t.orgRoles, ""],
    page.members.map((m) => {
      const roles = roleField(m.roles.join(" "), { "aria-label": `${t.orgRoles}: ${m.subjectId}` });
      const path = `${base}/members/${seg(m.subjectId)}`;
      return [
        h("a", { href: `#/users/${encodeURIComponent(m.subjectId)}` }, m.subjectId),
        [m.given_name, m.middle_name, m.family_name].filter(Boolean).join(" "),
        roles,
        h(
          "div",
          { class: "actions" },
          changeButton(
            t.setRoles,
            changed(t.saved, () => put(`${path}/roles`, { roles: words(roles.value) })),
            { "aria-label": `${t.setRoles}: ${m.subjectId}`, "data-focus": `roles:${m.subjectId}` },
          ),
          changeButton(
            t.remove,
            changed(t.memberRemoved, () => del(path)),
            {
              "aria-label": `${t.remove}: ${m.subjectId}`,
            },
          ),
        ),
      ];
    }),
  );
}

function addMemberForm(base: string): HTMLFormElement {
  const sub = input({ name: "subjectId", required: true, autocomplete: "off" });
  const roles = roleField();
  const form = h("form", { class: "grid" }, field(t.memberSub, sub), field(t.orgRoles, roles, t.rolesHint));
  return changeForm(
    form,
    t.addMember,
    changed(t.memberAdded, () => post(`${base}/members`, { subjectId: sub.value.trim(), roles: words(roles.value) })),
    { focus: "add-member" },
  );
}

function invitationsTable(base: string, page: InvitationsPage): HTMLTableElement {
  return table(
    t.pendingInvitations,
    [t.email, t.orgRoles, t.language, t.expires, ""],
    page.invitations.map((i) => [
      i.email,
      i.roles.join(" "),
      i.language,
      when(Date.parse(i.expiresAt), lang),
      changeButton(
        t.revoke,
        changed(t.invitationRevoked, () => del(`${base}/invitations/${seg(i.invitationId)}`)),
        { "aria-label": `${t.revoke}: ${i.email}` },
      ),
    ]),
  );
}

function inviteForm(base: string): HTMLFormElement {
  const email = input({ type: "email", name: "email", required: true, autocomplete: "off" });
  const roles = roleField();
  const language = h(
    "select",
    { name: "language" },
    ...Object.entries(LANGUAGES).map(([l, name]) =>
      h("option", { value: l, lang: l, ...(l === lang && { selected: true }) }, name),
    ),
  );
  const form = h(
    "form",
    { class: "grid" },
    field(t.email, email),
    field(t.orgRoles, roles, t.rolesHint),
    field(t.messageLanguage, language),
  );
  const body = () => ({ email: email.value.trim(), roles: words(roles.value), language: language.value });
  return changeForm(
    form,
    t.invite,
    changed(t.invitationSent, () => post(`${base}/invitations`, body())),
    { focus: "invite" },
  );
}

/** A claimed domain: the TXT record to publish (copyable), its check, its policy, its removal. */
function domainPart(base: string, d: Domain): HTMLElement {
  const path = `${base}/domains/${seg(d.domain)}`;
  const headingId = newId("d");
  const txt = (label: string, value: string) => {
    const box = input({ value, readonly: true, class: "secret" });
    return h("div", {}, field(label, box), copyButton(value, box, `${t.copy}: ${label}`));
  };
  const policy = h(
    "select",
    { name: "policy" },
    ...(["none", "join", "sso"] as const).map((p) =>
      h("option", { value: p, ...(p === d.policy && { selected: true }) }, t.policies[p]),
    ),
  );
  // A failed check can unverify a verified domain: the screen shows its state either way.
  const verify = changeButton(
    t.verifyNow,
    async () => {
      try {
        await post(`${path}/verify`);
      } finally {
        await rerender();
      }
      say(t.domainVerified);
    },
    { "aria-label": `${t.verifyNow}: ${d.domain}`, "data-focus": `verify:${d.domain}` },
  );
  const remove = changeButton(
    t.remove,
    confirmed(
      t.confirmRemoveDomain,
      t.remove,
      changed(t.domainRemoved, () => del(path)),
    ),
    { class: "danger", "aria-label": `${t.remove}: ${d.domain}` },
  );
  return h(
    "article",
    { class: "domain", "aria-labelledby": headingId },
    h("h3", { id: headingId }, d.domain),
    h(
      "dl",
      {},
      h("dt", {}, t.state),
      h("dd", {}, d.state === "verified" ? t.verified : t.pending),
      d.verifiedAt && [h("dt", {}, t.verifiedAt), h("dd", {}, when(d.verifiedAt, lang))],
      d.checkedAt && [h("dt", {}, t.checkedAt), h("dd", {}, when(d.checkedAt, lang))],
    ),
    txt(t.txtName, d.txt.name),
    txt(t.txtValue, d.txt.value),
    field(t.policy, policy, t.policyHint),
    h(
      "div",
      { class: "actions" },
      changeButton(
        t.setPolicy,
        changed(t.saved, () => put(path, { policy: policy.value })),
        { "aria-label": `${t.setPolicy}: ${d.domain}`, "data-focus": `policy:${d.domain}` },
      ),
      verify,
      remove,
    ),
  );
}

function claimForm(base: string): HTMLFormElement {
  const domain = input({ name: "domain", required: true, autocomplete: "off", spellcheck: "false" });
  const form = h("form", { class: "grid" }, field(t.domain, domain));
  return changeForm(
    form,
    t.claimDomain,
    changed(t.domainClaimed, () => post(`${base}/domains`, { domain: domain.value.trim().toLowerCase() })),
    { focus: "claim" },
  );
}

/** The connection as the API shows it (never its secret), the form that replaces it, and its removal. */
function ssoPart(base: string, sso: Sso | undefined): Child[] {
  const path = `${base}/sso`;
  const issuer = input({ type: "url", name: "issuer", required: true, value: sso?.issuer ?? "", autocomplete: "off" });
  const clientId = input({ name: "clientId", required: true, value: sso?.clientId ?? "", autocomplete: "off" });
  // Write-only: the API never returns it, so the field always starts empty.
  const secret = input({ type: "password", name: "clientSecret", required: true, autocomplete: "new-password" });
  const scopes = input({ name: "scopes", value: (sso?.scopes ?? ["openid", "email", "profile"]).join(" ") });
  const claims = CLAIMS.map(
    (name) => [name, input({ name, value: sso?.claims[name] ?? "", autocomplete: "off" })] as const,
  );
  const roles = roleField(sso?.defaultRoles.join(" ") ?? "");
  const enabled = checkbox(sso?.enabled ?? true, { name: "enabled" });
  const form = h(
    "form",
    { class: "grid" },
    field(t.issuer, issuer, t.issuerHint),
    field(t.ssoClientId, clientId),
    field(t.ssoSecret, secret, sso ? t.ssoSecretReplace : t.ssoSecretHint),
    field(t.scopes, scopes),
    ...claims.map(([name, box]) => field(`${t.claimFor} ${t.claimNames[name]}`, box)),
    field(t.defaultRoles, roles, t.rolesHint),
    field(t.ssoEnabled, enabled),
  );
  const body = () => ({
    issuer: issuer.value.trim(),
    clientId: clientId.value.trim(),
    clientSecret: secret.value,
    scopes: words(scopes.value),
    claims: Object.fromEntries(claims.map(([name, box]) => [name, box.value.trim()]).filter(([, v]) => v)),
    defaultRoles: words(roles.value),
    enabled: enabled.checked,
  });
  const save = changeForm(
    form,
    sso ? t.ssoReplace : t.ssoConfigure,
    changed(t.ssoSaved, () => put(path, body())),
    { focus: "sso" },
  );
  if (!sso) return [h("p", {}, t.ssoNone), save];
  const callback = input({ value: sso.callbackUrl, readonly: true, class: "secret" });
  const remove = changeButton(
    t.ssoDelete,
    confirmed(
      t.confirmSsoDelete,
      t.delete,
      changed(t.ssoDeleted, () => del(path)),
    ),
    { class: "danger" },
  );
  const row = (term: string, value: string) => [h("dt", {}, term), h("dd", {}, value)];
  return [
    h(
      "dl",
      { "data-testid": "sso" },
      row(t.issuer, sso.issuer),
      row(t.ssoClientId, sso.clientId),
      row(t.scopes, sso.scopes.join(" ")),
      row(t.claimMapping, CLAIMS.map((name) => `${t.claimNames[name]} ← ${sso.claims[name] ?? ""}`).join("; ")),
      row(t.defaultRoles, sso.defaultRoles.join(" ") || t.none),
      row(t.ssoEnabled, sso.enabled ? t.yes : t.no),
    ),
    h("div", {}, field(t.callbackUrl, callback, t.callbackHint), copyButton(sso.callbackUrl, callback)),
    h("h3", {}, t.ssoReplace),
    save,
    h("div", { class: "actions" }, remove),
  ];
}

/**
 * The organization's SCIM connection (docs/scim.md): the base URL and which token is set,
 * a new token shown once in a dialog (the one before stops working), and its removal.
 */
function scimPart(base: string, scim: Scim | undefined): Child[] {
  const path = `${base}/scim`;
  const take = changeButton(scim ? t.scimRotate : t.scimTake, async () => {
    const taken = await post<Scim & { token: string }>(`${path}/token`);
    await showSecret(taken.token, t.scimTokenLabel);
    await rerender();
    say(scim ? t.scimRotated : t.scimTaken);
  });
  if (!scim) return [h("p", {}, t.scimNone), h("div", { class: "actions" }, take)];
  const url = input({ value: scim.baseUrl, readonly: true, class: "secret" });
  const remove = changeButton(
    t.scimDelete,
    confirmed(
      t.confirmScimDelete,
      t.delete,
      changed(t.scimDeleted, () => del(path)),
    ),
    { class: "danger" },
  );
  const row = (term: string, value: string) => [h("dt", {}, term), h("dd", {}, value)];
  return [
    h(
      "dl",
      { "data-testid": "scim" },
      row(t.scimToken, `…${scim.tokenHint}`),
      row(t.scimRotatedAt, when(scim.rotatedAt, lang)),
    ),
    h("div", {}, field(t.scimBaseUrl, url, t.scimBaseUrlHint), copyButton(scim.baseUrl, url)),
    h("div", { class: "actions" }, take, remove),
  ];
}
