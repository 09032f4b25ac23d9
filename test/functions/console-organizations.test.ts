import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { keys } from "../../lib/store/keys";
import { useAdminConsole } from "../support/admin-console";
import { startTxtServer } from "../support/dns-server";
import { invoke, sampleEvent, seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";
import { startTestProvider, type TestProvider, useSettings } from "../support/oauth-provider";
import { outbox } from "../support/outbox";
import { storedItem, storedItems } from "../support/stored";

/**
 * The Organizations screens of the admin console (docs/console.md) in chromium: an operator
 * creates an organization, manages its members and roles, invitations, a domain proved at a
 * DNS server on loopback, and single sign-on against oauth2-mock-server; each change is read
 * back from the API and the table. A read-only operator sees every change disabled.
 */

const { issuer, read, send, person, openConsole, heading, focusedText, expectAccessible, picture } =
  await useAdminConsole();

// The sign-in waits for the authenticator's next 30-second code, and axe-core runs in both languages.
vi.setConfig({ testTimeout: 180_000 });

const dns = await startTxtServer();
let provider: TestProvider;
beforeAll(async () => {
  useSettings({ organizations: { dnsResolvers: [dns.resolver], dnsTimeoutMs: 1000 } });
  provider = await startTestProvider();
});
afterAll(async () => {
  await provider.stop();
  dns.close();
});

const SECRET = "console-idp-secret-7Qx";
const org = (orgId: string, rest = "") => `/orgs/${orgId}${rest}`;
const region = (page: Page, name: string) => page.getByRole("region", { name, exact: true });
const status = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();
const alert = (page: Page, text: string | RegExp) => page.getByRole("alert").filter({ hasText: text }).waitFor();
/** The routes of the operator's console calls with this result, from their own trail. */
const trail = async (sub: string, result: string) =>
  (await storedItems(sub, "EVENT#"))
    .filter((e) => e.cId === "svc-console" && e.result === result)
    .map((e) => (e.prms as { route: string }).route);
const rolesOf = async (orgId: string, sub: string) =>
  (await services().organizations.memberState(orgId, sub))?.roles.slice().sort();

/** The organization partition's items under `prefix`, read strongly consistent. */
async function orgItems(orgId: string, prefix: string) {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)",
      ExpressionAttributeValues: { ":pk": keys.groupPartition("org", orgId), ":p": prefix },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

describe("an operator with full control on the Organizations screens", () => {
  it("creates an organization, adds members, changes roles, invites by keyboard, verifies a domain, sets its policy and connects SSO: each change read back", async () => {
    const admin = await person("APP_ADMIN");
    const alice = await seedAccount({ given_name: "Alice", family_name: uniqueId("Admin") }, PASSWORD);
    const bob = await seedAccount({ given_name: "Bob", family_name: uniqueId("Member") }, PASSWORD);
    const { context, page } = await openConsole(admin);
    const orgId = uniqueId("acme-");

    // Create: the organization is a group of profile org.
    await page.getByRole("link", { name: "Organizations" }).click();
    await heading(page).filter({ hasText: "Organizations" }).waitFor();
    await page.getByLabel("Organization id").fill(orgId);
    await page.getByLabel("Name", { exact: true }).fill("Acme Ltd");
    await page.getByRole("button", { name: "Create" }).click();
    await heading(page).filter({ hasText: "Organization: Acme Ltd" }).waitFor();
    await status(page, "The organization was created.");
    expect((await read(`${issuer}/api/v2/grps/${orgId}?profile=org`, ["svc_groups"])).body).toMatchObject({
      id: orgId,
      profile: "org",
      name: "Acme Ltd",
    });

    // Members: added with roles, roles changed, the last admin kept, one removed.
    const members = region(page, "Members");
    for (const [who, roles] of [
      [alice.sub, "ORG_ADMIN"],
      [bob.sub, "SYS_MON"],
    ]) {
      await members.getByLabel("Account identifier").fill(who);
      await members.getByLabel("Roles", { exact: true }).fill(roles);
      await members.getByRole("button", { name: "Add member" }).click();
      await status(page, "The account was added to the organization.");
      await members.getByRole("link", { name: who }).waitFor();
    }
    expect(await rolesOf(orgId, alice.sub)).toEqual(["ORG_ADMIN"]);
    expect(await rolesOf(orgId, bob.sub)).toEqual(["SYS_MON"]);
    await members.getByLabel(`Roles: ${bob.sub}`, { exact: true }).fill("ORG_ADMIN SYS_MON");
    await members.getByRole("button", { name: `Set roles: ${bob.sub}` }).click();
    await status(page, "Saved.");
    expect(await rolesOf(orgId, bob.sub)).toEqual(["ORG_ADMIN", "SYS_MON"]);
    const listed = await read(org(orgId, "/members"), ["svc_groups"]);
    const bySub = (listed.body.members as { subjectId: string; roles: string[] }[]).map((m) => [
      m.subjectId,
      m.roles.slice().sort(),
    ]);
    expect(bySub).toEqual(
      [
        [alice.sub, ["ORG_ADMIN"]],
        [bob.sub, ["ORG_ADMIN", "SYS_MON"]],
      ].sort(),
    );
    expect(await members.getByLabel(`Roles: ${bob.sub}`, { exact: true }).inputValue()).toMatch(
      /^(ORG_ADMIN SYS_MON|SYS_MON ORG_ADMIN)$/,
    );
    // Alice as the last admin: the API refuses, the alert says why, nothing changes.
    await members.getByLabel(`Roles: ${bob.sub}`, { exact: true }).fill("SYS_MON");
    await members.getByRole("button", { name: `Set roles: ${bob.sub}` }).click();
    await status(page, "Saved.");
    await members.getByRole("button", { name: `Remove: ${alice.sub}` }).click();
    await alert(page, /without an ORG_ADMIN/);
    expect(await rolesOf(orgId, alice.sub)).toEqual(["ORG_ADMIN"]);
    await members.getByRole("button", { name: `Remove: ${bob.sub}` }).click();
    await status(page, "The member and its roles were removed.");
    expect(await services().organizations.memberState(orgId, bob.sub)).toBeUndefined();
    expect(await storedItem(keys.groupMember("org", orgId, bob.sub))).toBeUndefined();
    expect(await members.getByRole("link", { name: bob.sub }).count()).toBe(0);

    // Invitations: sent with the keyboard alone (type, Tab, Enter), listed, one revoked.
    const invitations = region(page, "Invitations");
    const invitee = `${uniqueId("new")}@example.com`.toLowerCase();
    await invitations.getByLabel("E-mail").focus();
    await page.keyboard.type(invitee);
    await page.keyboard.press("Tab");
    await page.keyboard.type("SYS_MON");
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.getAttribute('name') ?? ''")).toBe("language");
    await page.keyboard.press("Tab");
    expect(await focusedText(page)).toBe("Send the invitation");
    await page.keyboard.press("Enter");
    await status(page, "The invitation was sent.");
    // The redrawn page gives focus back to the button, so the keyboard goes on from there.
    await expect.poll(() => focusedText(page)).toBe("Send the invitation");
    await invitations.getByRole("cell", { name: invitee, exact: true }).waitFor();
    const [message] = outbox(invitee);
    expect(message).toMatchObject({ channel: "email", lang: "en", subject: "Invitation to join Acme Ltd" });
    expect(message?.text).toMatch(/\/oauth\/invitation\?token=/);
    const stored = (await orgItems(orgId, "INVITATION#")).map(({ entity, email, roles }) => ({ entity, email, roles }));
    expect(stored).toEqual([{ entity: "org-invitation", email: invitee, roles: ["SYS_MON"] }]);
    const second = `${uniqueId("other")}@example.com`.toLowerCase();
    await invitations.getByLabel("E-mail").fill(second);
    await invitations.getByLabel("Language of the message").selectOption("ru");
    await invitations.getByRole("button", { name: "Send the invitation" }).click();
    await invitations.getByRole("cell", { name: second, exact: true }).waitFor();
    expect(outbox(second)[0]?.lang).toBe("ru");
    await invitations.getByRole("button", { name: `Revoke: ${second}` }).click();
    await status(page, "The invitation was revoked");
    const pending = await read(org(orgId, "/invitations"), ["svc_groups"]);
    expect((pending.body.invitations as { email: string }[]).map((i) => i.email)).toEqual([invitee]);
    expect(await invitations.getByRole("cell", { name: second, exact: true }).count()).toBe(0);

    // Domains: claimed, its TXT record shown and copied, refused while unpublished or the DNS is down, then verified.
    const domains = region(page, "Domains");
    const domain = `${orgId}.example.org`;
    await domains.getByLabel("Domain", { exact: true }).fill(domain);
    await domains.getByRole("button", { name: "Claim the domain" }).click();
    await status(page, "The domain was claimed");
    const claim = domains.getByRole("article", { name: domain });
    const txtName = await claim.getByLabel("TXT record name").inputValue();
    const txtValue = await claim.getByLabel("TXT record value").inputValue();
    const claimed = await storedItem(keys.orgDomain(orgId, domain));
    expect(txtName).toBe(`_svc-identity-challenge.${domain}`);
    expect(claimed?.state).toBe("pending");
    expect(JSON.stringify(claimed)).toContain(txtValue.replace(/^svc-identity-verification=/, ""));
    await claim.getByRole("button", { name: "Copy: TXT record value" }).click();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(txtValue);
    await claim.getByRole("button", { name: `Verify now: ${domain}` }).click();
    await alert(page, "no TXT record found");
    dns.state.failing = true;
    await claim.getByRole("button", { name: `Verify now: ${domain}` }).click();
    await alert(page, "the DNS did not answer");
    dns.state.failing = false;
    expect((await storedItem(keys.orgDomain(orgId, domain)))?.state).toBe("pending");
    dns.zone.set(txtName, [txtValue]);
    await claim.getByRole("button", { name: `Verify now: ${domain}` }).click();
    await status(page, "The domain is verified.");
    await claim.getByText("verified", { exact: true }).waitFor();
    expect((await storedItem(keys.orgDomain(orgId, domain)))?.state).toBe("verified");
    await claim.getByLabel("Policy", { exact: true }).selectOption("sso");
    await claim.getByRole("button", { name: "Set policy" }).click();
    await status(page, "Saved.");
    const domainList = await read(org(orgId, "/domains"), ["svc_groups"]);
    expect(domainList.body.domains).toEqual([expect.objectContaining({ domain, state: "verified", policy: "sso" })]);
    expect(await storedItem(keys.domainOwner(domain))).toMatchObject({ policy: "sso" });

    // Single sign-on: connected against the mock provider; the secret is sealed and never on the page.
    const sso = region(page, "Single sign-on");
    await sso.getByText("No identity provider is connected.").waitFor();
    await sso.getByLabel("Issuer", { exact: true }).fill(provider.url);
    await sso.getByLabel("Client id at the provider").fill("acme-at-idp");
    await sso.getByLabel("Client secret").fill(SECRET);
    await sso.getByLabel("Claim for given name").fill("first_name");
    await sso.getByLabel("Default roles").fill("SYS_MON");
    await sso.getByRole("button", { name: "Connect the provider" }).click();
    await status(page, "The single sign-on connection was saved.");
    const details = sso.getByTestId("sso");
    await details.getByText(provider.url).waitFor();
    expect(await details.textContent()).toContain("given name ← first_name");
    expect(await sso.getByLabel("Client secret").inputValue()).toBe("");
    expect(await page.content()).not.toContain(SECRET);
    const connection = await read(org(orgId, "/sso"), ["svc_groups"]);
    expect(connection.body).toMatchObject({
      issuer: provider.url,
      clientId: "acme-at-idp",
      defaultRoles: ["SYS_MON"],
      enabled: true,
      claims: expect.objectContaining({ givenName: "first_name" }),
    });
    const item = await storedItem(keys.orgSso(orgId));
    expect(item?.sealedSecret).toMatch(/^v1\./);
    expect(JSON.stringify(item)).not.toContain(SECRET);

    // SCIM: a token taken by a click, shown once in a dialog, stored only as its digest, and working.
    const scimRegion = region(page, "Provisioning (SCIM)");
    await scimRegion.getByText("No SCIM connection", { exact: false }).waitFor();
    await scimRegion.getByRole("button", { name: "Take a SCIM token" }).click();
    const shown = page.getByRole("dialog");
    const scimToken = await shown.getByLabel("SCIM token").inputValue();
    expect(scimToken).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
    await shown.getByRole("button", { name: "Close" }).click();
    await status(page, "The SCIM token was taken");
    expect(await scimRegion.getByTestId("scim").textContent()).toContain(`…${scimToken.slice(-4)}`);
    expect(await scimRegion.getByLabel("SCIM base URL").inputValue()).toBe(`${config().issuer}/scim/v2`);
    expect(await page.content()).not.toContain(scimToken);
    expect(await storedItem(keys.scimConnection(orgId))).toMatchObject({ tokenDigest: digestSecret(scimToken) });
    const provisioning = await invoke(
      "scim",
      await sampleEvent("events/scim/service-provider-config.json", {}, (raw) => {
        raw.headers.authorization = `Bearer ${scimToken}`;
      }),
    );
    expect(provisioning.statusCode).toBe(200);

    await expectAccessible(page);
    await picture(page, "organization-en");
    await page.getByLabel("Language", { exact: true }).selectOption("ru");
    await heading(page).filter({ hasText: "Организация: Acme Ltd" }).waitFor();
    await region(page, "Единый вход").getByRole("button", { name: "Заменить подключение" }).waitFor();
    await expectAccessible(page);
    await picture(page, "organization-ru");

    // Deleting the connection asks first, then the stored item is gone.
    await region(page, "Единый вход").getByRole("button", { name: "Удалить подключение" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Удалить" }).click();
    await status(page, "Подключение единого входа удалено.");
    expect(await storedItem(keys.orgSso(orgId))).toBeUndefined();
    // Each change is in the operator's own trail, the refused one with its reason.
    expect(await trail(admin.account.sub, "ok")).toEqual(
      expect.arrayContaining([
        "orgs.member-add",
        "orgs.member-roles",
        "orgs.member-remove",
        "orgs.invite",
        "orgs.invitation-revoke",
        "orgs.domain-claim",
        "orgs.domain-verify",
        "orgs.domain-policy",
        "orgs.sso-put",
        "orgs.sso-delete",
        "orgs.scim-token",
      ]),
    );
    expect(await trail(admin.account.sub, "last_org_admin")).toEqual(["orgs.member-remove"]);
    await context.close();
  });

  it("lists organizations with the RQL filter and pages, each linked to its page", async () => {
    const admin = await person("APP_ADMIN");
    const prefix = uniqueId("paged-");
    for (let i = 0; i < 21; i++)
      expect(
        await send("POST", `${issuer}/api/v2/grps`, ["svc_groups"], {
          profile: "org",
          id: `${prefix}-${String(i).padStart(2, "0")}`,
          name: prefix,
        }),
      ).toBe(201);
    const { context, page } = await openConsole(admin);
    await page.evaluate(`location.hash = "#/orgs"`);
    await page.getByLabel("Filter (RQL, optional)").fill(`eq(name,${prefix})`);
    await page.getByRole("button", { name: "Show" }).click();
    const rows = page.getByRole("table", { name: "Organizations" }).getByRole("row");
    await page.getByRole("link", { name: `${prefix}-00` }).waitFor();
    expect(await rows.count()).toBe(21);
    await page
      .getByRole("navigation", { name: "Organizations: Page" })
      .getByRole("link", { name: "Next page" })
      .click();
    await page.getByRole("link", { name: `${prefix}-20` }).click();
    await heading(page)
      .filter({ hasText: `Organization: ${prefix}` })
      .waitFor();
    expect(new URL(page.url()).hash).toBe(`#/orgs/${prefix}-20`);
    await context.close();
  });
});

describe("a read-only operator on an organization's page", () => {
  it("sees every change disabled with the reason, the connection without its secret, a change sent anyway refused and in its trail, and pages through 51 members", async () => {
    const monitor = await person("SYS_MON");
    const member = await seedAccount({ given_name: "Mona", family_name: uniqueId("Member") }, PASSWORD);
    const orgId = uniqueId("ro-");
    const all = ["svc_groups", "svc_rights_full_access"];
    expect(await send("POST", `${issuer}/api/v2/grps`, all, { profile: "org", id: orgId, name: "Readers" })).toBe(201);
    expect(await send("POST", org(orgId, "/members"), all, { subjectId: member.sub, roles: ["ORG_ADMIN"] })).toBe(201);
    expect(await send("POST", org(orgId, "/invitations"), all, { email: "ro@example.com", language: "en" })).toBe(201);
    expect(await send("POST", org(orgId, "/domains"), all, { domain: `${orgId}.example.net` })).toBe(201);
    const ssoBody = { issuer: provider.url, clientId: "ro-client", clientSecret: SECRET };
    expect(await send("PUT", org(orgId, "/sso"), all, ssoBody)).toBe(200);

    const { context, page } = await openConsole(monitor);
    await page.evaluate(`location.hash = "#/orgs/${orgId}"`);
    await heading(page).filter({ hasText: "Organization: Readers" }).waitFor();
    await region(page, "Single sign-on").getByText("ro-client").waitFor();
    const buttons = [
      `Set roles: ${member.sub}`,
      `Remove: ${member.sub}`,
      "Add member",
      "Revoke: ro@example.com",
      "Send the invitation",
      `Verify now: ${orgId}.example.net`,
      `Set policy: ${orgId}.example.net`,
      `Remove: ${orgId}.example.net`,
      "Claim the domain",
      "Replace the connection",
      "Delete the connection",
      "Take a SCIM token",
    ];
    for (const name of buttons) {
      const button = page.getByRole("button", { name, exact: true });
      expect(await button.isDisabled(), name).toBe(true);
      expect(await page.locator(`#${await button.getAttribute("aria-describedby")}`).textContent()).toMatch(
        /read-only operator/,
      );
    }
    expect(await page.content()).not.toContain(SECRET);
    await expectAccessible(page);

    // The page's lock is a courtesy; the API's refusal is what counts.
    const remove = page.getByRole("button", { name: `Remove: ${member.sub}`, exact: true });
    await remove.evaluate((button) => {
      (button as unknown as { disabled: boolean }).disabled = false;
    });
    await remove.click();
    await alert(page, "The service refused this change");
    expect(await rolesOf(orgId, member.sub)).toEqual(["ORG_ADMIN"]);
    expect(await trail(monitor.account.sub, "read_only_operator")).toEqual(["orgs.member-remove"]);

    // 50 members a page: 50 more than the one, then the next page holds the last.
    for (let i = 0; i < 50; i++) {
      const more = await seedAccount({ family_name: `Zz${String(i).padStart(2, "0")}` });
      expect(await send("POST", org(orgId, "/members"), all, { subjectId: more.sub })).toBe(201);
    }
    await page.reload();
    const rows = page.getByRole("table", { name: "Members" }).getByRole("row");
    await page.getByRole("navigation", { name: "Members: Page" }).getByRole("link", { name: "Next page" }).click();
    await page.getByRole("link", { name: "First page" }).waitFor();
    expect(await rows.count()).toBe(2);
    const listed = await read(org(orgId, "/members?limit=100"), ["svc_groups"]);
    const last = (listed.body.members as { subjectId: string }[]).at(-1)?.subjectId;
    expect(listed.body.members).toHaveLength(51);
    await page.getByRole("table", { name: "Members" }).getByRole("link", { name: last, exact: true }).waitFor();
    await page.getByRole("link", { name: "First page" }).click();
    await page.getByRole("link", { name: "Next page" }).waitFor();
    expect(await rows.count()).toBe(51);
    await context.close();
  });
});
