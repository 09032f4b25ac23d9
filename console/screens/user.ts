import { del, get, post, seg } from "../api";
import { checkbox, field, h, input, section, table, when } from "../dom";
import { changeButton, changed, changeForm, confirmDialog, goTo, lang, part, say, settled, t } from "../ui";
import { rerender, type Screen } from "./screen";
import { nameOf } from "./users";

interface Contact {
  value: string;
  vrf: boolean;
}
interface Account {
  sub: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  locked?: boolean;
  email?: Contact;
  phone_number?: Contact;
  meta: { instanceId: string };
}
interface Device {
  id: string;
  name?: string;
  os?: string;
  latestIp?: string;
  lastUsed?: number;
}
interface AuditEvent {
  ts: number;
  type: string;
  cId?: string;
  ip?: string;
  result?: string;
}
type RightsMap = Record<string, Record<string, string[]>>;
interface GroupsPage {
  groups: { id: string; profile: string; addedAt: number; group?: { name?: unknown } }[];
  next?: string;
}

/** Groups of the account per page: one BatchGetItem of the groups when expanded (interface §4.8a). */
const GROUPS_PAGE = 100;

const yesNo = (v: boolean | undefined) => (v ? t.yes : t.no);

function attributesForm(account: Account, base: string): HTMLFormElement {
  const given = input({ name: "given_name", value: account.given_name ?? "", autocomplete: "off" });
  const family = input({ name: "family_name", value: account.family_name ?? "", autocomplete: "off" });
  const middle = input({ name: "middle_name", value: account.middle_name ?? "", autocomplete: "off" });
  const email = input({ type: "email", name: "email", value: account.email?.value ?? "", autocomplete: "off" });
  const phone = input({ type: "tel", name: "phone", value: account.phone_number?.value ?? "", autocomplete: "off" });
  const withCode = checkbox(false, { name: "with_code" });
  const form = h(
    "form",
    { class: "grid" },
    field(t.givenName, given),
    field(t.middleName, middle),
    field(t.familyName, family),
    field(t.email, email),
    field(t.phone, phone),
    field(t.sendCode, withCode),
  );
  return changeForm(form, t.save, async () => {
    // Only what changed is sent; an emptied name is removed (null), as §4.6 says.
    const body: Record<string, unknown> = {};
    const names: [string, HTMLInputElement, string | undefined][] = [
      ["given_name", given, account.given_name],
      ["middle_name", middle, account.middle_name],
      ["family_name", family, account.family_name],
    ];
    for (const [name, control, before] of names)
      if (control.value.trim() !== (before ?? "")) body[name] = control.value.trim() || null;
    const contacts: [string, HTMLInputElement, Contact | undefined][] = [
      ["email", email, account.email],
      ["phone_number", phone, account.phone_number],
    ];
    for (const [name, control, before] of contacts)
      if (control.value.trim() && control.value.trim() !== before?.value)
        body[name] = { value: control.value.trim(), vrf: !withCode.checked };
    if (Object.keys(body).length === 0) return say(t.saved);
    await post(base, body);
    await rerender();
    say(withCode.checked && (body.email || body.phone_number) ? t.codeSent : t.saved);
  });
}

/** A group's member list change (interface §4.8): `add` or `rm` of one account. */
const membersChange = (profile: string, id: string, action: "add" | "rm") =>
  `/api/v2/grps/${seg(id)}/members/${action}?${new URLSearchParams({ profile })}`;

function addToGroupForm(sub: string): HTMLFormElement {
  const profile = input({ name: "group_profile", value: "org", required: true, autocomplete: "off" });
  const id = input({ name: "group_id", required: true, autocomplete: "off" });
  const form = h("form", { class: "inline" }, field(t.profile, profile), field(t.groupId, id));
  return changeForm(
    form,
    t.addToGroup,
    changed(t.addedToGroup, () =>
      post(membersChange(profile.value.trim(), id.value.trim(), "add"), [{ subjectId: sub }]),
    ),
  );
}

/** The account's groups, a page at a time (`#/users/<sub>?groups=<cursor>`), each linked to its screen. */
function groupsSection(sub: string, groups: GroupsPage | Error, cursor: string | null): HTMLElement {
  const here = `#/users/${encodeURIComponent(sub)}`;
  return section(
    t.groups,
    part(groups, (page) => [
      table(
        t.groups,
        [t.groupId, t.profile, t.name, t.memberSince, ""],
        page.groups.map((g) => [
          h("a", { href: `#/groups/${encodeURIComponent(g.profile)}/${encodeURIComponent(g.id)}` }, g.id),
          g.profile,
          typeof g.group?.name === "string" ? g.group.name : "",
          when(g.addedAt, lang),
          changeButton(
            t.removeFromGroup,
            changed(t.removedFromGroup, () => post(membersChange(g.profile, g.id, "rm"), [{ subjectId: sub }])),
            { "aria-label": `${t.removeFromGroup}: ${g.profile}/${g.id}` },
          ),
        ]),
      ),
      (cursor || page.next) &&
        h(
          "nav",
          { class: "pager", "aria-label": `${t.groups}: ${t.page}` },
          cursor && h("a", { href: here }, t.firstPage),
          page.next && h("a", { href: `${here}?${new URLSearchParams({ groups: page.next })}` }, t.next),
        ),
    ]),
    addToGroupForm(sub),
  );
}

/** `#/users/<sub>`: everything about one account, and what an operator may do to it. */
export const userScreen: Screen = async ({ params, query }) => {
  const sub = params[0] ?? "";
  const base = `/api/v3/users/${seg(sub)}`;
  const groupsCursor = query.get("groups");
  const groupsQuery = new URLSearchParams({
    expand: "true",
    limit: String(GROUPS_PAGE),
    ...(groupsCursor && { cursor: groupsCursor }),
  });
  const account = await get<Account>(base);
  // Read beside the other parts, each settled on its own.
  const groupsRead = settled(get<GroupsPage>(`${base}/groups?${groupsQuery}`));
  const [state, auth, totps, passkeys, recovery, devices, links, held, over, events, props] = await Promise.all([
    settled(get<{ name: string; till?: number }>(`${base}/state`)),
    settled(
      get<{ requiredFactor?: number | null; needPasswordChange: boolean; methodsLocked: string[] }>(`${base}/auth`),
    ),
    settled(get<{ id: string; name?: string; len: number }[]>(`${base}/totps`)),
    settled(get<{ id: string; name: string; createdAt: number }[]>(`${base}/passkeys`)),
    settled(get<{ remaining: number }>(`${base}/recovery-codes`)),
    settled(get<Device[]>(`${base}/uas`)),
    settled(get<{ sid: string; fpType: string; fpName: string }[]>(`${base}/fa`)),
    settled(get<RightsMap>(`/api/v3/rights/of/${seg(sub)}`)),
    settled(get<Record<string, string[]>>(`/api/v3/rights/on/${seg(sub)}`)),
    settled(get<AuditEvent[]>(`${base}/audit?${new URLSearchParams({ rql: "limit(50)", ua: "none" })}`)),
    settled(get<Record<string, unknown>>(`${base}/props`)),
  ]);
  const groups = await groupsRead;
  const instance = `/api/v3/users/${seg(account.meta.instanceId)}`;

  const stateSection = section(
    t.stateAndLocks,
    h(
      "dl",
      {},
      h("dt", {}, t.state),
      h(
        "dd",
        { "data-testid": "state" },
        part(state, (s) => s.name),
      ),
      h("dt", {}, t.locked),
      h("dd", { "data-testid": "locked" }, yesNo(account.locked)),
      h("dt", {}, t.passwordLocked),
      h(
        "dd",
        {},
        part(auth, (a) => yesNo(a.methodsLocked.includes("password"))),
      ),
      h("dt", {}, t.secondFactorRequired),
      h(
        "dd",
        {},
        part(auth, (a) => yesNo(a.requiredFactor === 2)),
      ),
      h("dt", {}, t.mustChangePassword),
      h(
        "dd",
        {},
        part(auth, (a) => yesNo(a.needPasswordChange)),
      ),
    ),
    h(
      "div",
      { class: "actions" },
      account.locked
        ? changeButton(
            t.unlock,
            changed(t.saved, () => post(instance, { locked: false })),
            { "data-focus": "lock" },
          )
        : changeButton(
            t.lock,
            changed(t.saved, () => post(instance, { locked: true })),
            { "data-focus": "lock" },
          ),
      !(auth instanceof Error) &&
        (auth.methodsLocked.includes("password")
          ? changeButton(
              t.unlockPassword,
              changed(t.saved, () => post(`${base}/auth`, { methodsLocked: [] })),
            )
          : changeButton(
              t.lockPassword,
              changed(t.saved, () => post(`${base}/auth`, { methodsLocked: ["password"] })),
            )),
      !(state instanceof Error) &&
        state.name !== "untouchable" &&
        changeButton(
          t.untouchable,
          changed(t.saved, () => post(`${base}/state`, { name: "untouchable" })),
        ),
    ),
  );

  const passwordSection = section(
    t.password,
    h(
      "div",
      { class: "actions" },
      changeButton(
        t.forcePasswordChange,
        changed(t.saved, () => post(`${base}/auth`, { needPasswordChange: true })),
      ),
      account.phone_number?.vrf &&
        changeButton(
          t.sendPassword,
          changed(t.passwordSent, () => post(`${instance}/pswd`, { sendPswdToAttr: "phone_number" })),
        ),
    ),
  );

  const factors = section(
    t.secondFactors,
    part(totps, (list) =>
      table(
        t.authenticators,
        [t.name, ""],
        list.map((totp) => [
          totp.name ?? totp.id,
          changeButton(
            t.remove,
            changed(t.saved, () => del(`${base}/totps/${seg(totp.id)}`)),
            {
              "aria-label": `${t.remove}: ${totp.name ?? totp.id}`,
            },
          ),
        ]),
      ),
    ),
    part(passkeys, (list) =>
      table(
        t.passkeys,
        [t.name, t.time, ""],
        list.map((key) => [
          key.name,
          when(key.createdAt, lang),
          changeButton(
            t.remove,
            changed(t.saved, () => del(`${base}/passkeys/${seg(key.id)}`)),
            {
              "aria-label": `${t.remove}: ${key.name}`,
            },
          ),
        ]),
      ),
    ),
    h(
      "p",
      {},
      `${t.recoveryCodes}: `,
      part(recovery, (r) => String(r.remaining)),
    ),
  );

  const deviceSection = section(
    t.devices,
    part(devices, (list) =>
      table(
        t.devices,
        [t.device, t.address, t.lastUsed, ""],
        list.map((d) => [
          [d.name, d.os].filter(Boolean).join(", ") || d.id,
          d.latestIp,
          when(d.lastUsed, lang),
          changeButton(
            t.endSession,
            changed(t.saved, () => del(`${base}/uas/${seg(d.id)}`)),
            {
              "aria-label": `${t.endSession}: ${d.name ?? d.id}`,
            },
          ),
        ]),
      ),
    ),
    h(
      "div",
      { class: "actions" },
      changeButton(
        t.endAll,
        changed(t.sessionsEnded, () => post(`${base}/sessions/reset`, {})),
      ),
    ),
  );

  const linkedSection = section(
    t.linked,
    part(links, (list) =>
      list.length
        ? table(
            t.linked,
            [t.provider, t.sub],
            list.map((l) => [`${l.fpType}/${l.fpName}`, l.sid]),
          )
        : h("p", {}, t.none),
    ),
  );

  const rightsSection = section(
    t.rights,
    part(held, (map) =>
      table(
        t.rightsHeld,
        [t.object, t.rights, t.tags],
        Object.entries(map).flatMap(([object, rights]) =>
          Object.entries(rights).map(([right, tags]) => [object, right, tags.join(", ")]),
        ),
      ),
    ),
    part(over, (map) =>
      table(
        t.rightsOver,
        [t.subject, t.rights],
        Object.entries(map).map(([subject, rights]) => [subject, rights.join(", ")]),
      ),
    ),
  );

  const propsSection = section(
    t.properties,
    part(props, (map) =>
      Object.keys(map).length
        ? h("dl", {}, ...Object.entries(map).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]))
        : h("p", {}, t.none),
    ),
  );

  const eventSection = section(
    t.events,
    part(events, (list) =>
      table(
        t.events,
        [t.time, t.type, t.application, t.address, t.result],
        list.map((e) => [when(e.ts, lang), e.type, e.cId, e.ip, e.result]),
      ),
    ),
  );

  return {
    title: `${t.account}: ${nameOf(account) || account.sub}`,
    body: [
      h("p", {}, h("a", { href: "#/users" }, t.backToUsers)),
      h("p", { class: "sub" }, `${t.sub}: `, h("code", {}, account.sub)),
      section(t.attributes, attributesForm(account, instance)),
      stateSection,
      passwordSection,
      factors,
      deviceSection,
      linkedSection,
      rightsSection,
      groupsSection(account.sub, groups, groupsCursor),
      propsSection,
      eventSection,
      section(
        t.deleteAccount,
        h("p", {}, t.deleteAccountHint),
        changeButton(
          t.deleteAccount,
          async () => {
            if (!(await confirmDialog(t.confirmDeleteAccount, t.deleteAccount))) return;
            await del(`/api/v3/users/${seg(account.sub)}`);
            goTo("#/users", t.accountDeleted);
          },
          { class: "danger" },
        ),
      ),
    ],
  };
};
