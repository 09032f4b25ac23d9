import { describe, expect, it, vi } from "vitest";
import { useAdminConsole } from "../support/admin-console";
import { createClient, seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";
import { signedIn as passwordGrant } from "../support/login";

/**
 * The admin console (docs/console.md) in chromium: operators sign in through the provider
 * with a second factor, walk each screen, and every change is read back through the API.
 * The sign-in needs the operator authority (the svc-console client, svc_op, branch op-auth).
 */

const {
  issuer,
  browser,
  consoleUrl,
  api,
  read,
  person,
  freshCode,
  passSignIn,
  openConsole,
  ageConsoleSignIn,
  heading,
  focusedText,
  expectAccessible,
  picture,
} = await useAdminConsole();

// A sign-in again waits for the authenticator's next 30-second code, and axe-core runs on every screen.
vi.setConfig({ testTimeout: 120_000 });

describe("an operator with full control", () => {
  it("signs in with a second factor, sees who they are, and no token is kept in web storage", async () => {
    const admin = await person("APP_ADMIN");
    const { context, page } = await openConsole(admin);
    await expect.poll(() => page.getByText(/Signed in as Olga .*\(full control\)/).count()).toBe(1);
    expect(new URL(page.url()).search).toBe("");
    const stored = await page.evaluate<unknown>(
      "({ local: Object.keys(localStorage), session: Object.keys(sessionStorage), cookies: document.cookie })",
    );
    expect(stored).toEqual({ local: [], session: [], cookies: "" });
    await expectAccessible(page);
    await context.close();
  });

  it("finds an account by name, opens it, locks and unlocks it, edits a name and ends its sessions: the API reads each change back", async () => {
    const admin = await person("APP_ADMIN");
    const family = uniqueId("Petrova");
    const target = await seedAccount({ given_name: "Anna", family_name: family }, PASSWORD);
    const { context, page } = await openConsole(admin);
    const users = ["svc_api_sys_users"];

    await page.getByLabel("Name, e-mail, phone or identifier").fill(family);
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: target.sub }).click();
    await heading(page)
      .filter({ hasText: `Account: Anna Ivanovich ${family}` })
      .waitFor();
    await expectAccessible(page);
    await picture(page, "account-en");

    await page.getByRole("button", { name: "Lock", exact: true }).click();
    await page.getByRole("button", { name: "Unlock", exact: true }).waitFor();
    expect((await read(`/users/${target.sub}`, users)).body.locked).toBe(true);
    await page.getByRole("button", { name: "Unlock", exact: true }).click();
    await page.getByRole("button", { name: "Lock", exact: true }).waitFor();
    expect((await read(`/users/${target.sub}`, users)).body.locked).toBe(false);

    await page.getByLabel("Given name").fill("Anastasia");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await read(`/users/${target.sub}`, users)).body.given_name).toBe("Anastasia");

    // A session of the account (a password grant), ended by the console: its token is refused at once.
    const client = await createClient();
    const tokens = await passwordGrant(
      client,
      { username: target.sub, password: PASSWORD, scope: "svc_api_user" },
      { "user-agent": "Mozilla/5.0 Firefox/130.0", "x-forwarded-for": "198.51.100.7" },
    );
    const asTarget = () =>
      fetch(api(`/users/${target.sub}`), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await asTarget()).status).toBe(200);
    await page.reload();
    await heading(page).filter({ hasText: "Anastasia" }).waitFor();
    expect(await page.getByRole("table", { name: "Devices and sessions" }).getByRole("row").count()).toBe(2);
    await page.getByRole("button", { name: "End all sessions" }).click();
    await page.getByRole("status").filter({ hasText: "Every session of the account has ended." }).waitFor();
    expect((await asTarget()).status).toBe(401);
    await context.close();
  });

  it("creates an application, edits it, rotates its secret (shown once) and deletes it after confirming it's them", async () => {
    const admin = await person("APP_ADMIN");
    const { context, page } = await openConsole(admin);
    const clients = ["svc_api_sys_clients"];
    const id = uniqueId("console-app-");

    await page.getByRole("link", { name: "Applications" }).click();
    await heading(page).filter({ hasText: "Applications" }).waitFor();
    await expectAccessible(page);
    await page.getByRole("link", { name: "New application" }).click();
    await page.getByLabel("Client id (generated when empty)").fill(id);
    await page.getByLabel("authorization_code").check();
    await page.getByLabel("client_credentials").check();
    await page.getByLabel("Redirect URIs (one per line)", { exact: true }).fill("https://app.example.com/cb");
    await expectAccessible(page);
    await page.getByRole("button", { name: "Create" }).click();
    const first = await page.getByLabel("Client secret").inputValue();
    expect(first.length).toBeGreaterThan(30);
    await expectAccessible(page);
    await page.getByRole("button", { name: "Close" }).click();
    await heading(page)
      .filter({ hasText: `Applications: ${id}` })
      .waitFor();
    expect((await read(`${issuer}/admin/api/v3/clients/${id}`, clients)).body).toMatchObject({
      clientId: id,
      public: false,
      redirectUris: ["https://app.example.com/cb"],
    });

    await page
      .getByLabel("Redirect URIs (one per line)", { exact: true })
      .fill("https://app.example.com/cb\nhttps://app.example.com/cb2");
    await page.getByLabel("First-party (no consent screen)").check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await read(`${issuer}/admin/api/v3/clients/${id}`, clients)).body).toMatchObject({
      redirectUris: ["https://app.example.com/cb", "https://app.example.com/cb2"],
      firstParty: true,
    });

    await page.getByRole("button", { name: "Rotate the secret" }).click();
    const second = await page.getByLabel("Client secret").inputValue();
    expect(second).not.toBe(first);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied.").waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(second);
    await page.keyboard.press("Escape");
    const authenticates = async (secret: string) =>
      (
        await fetch(`${issuer}/oauth/te`, {
          method: "POST",
          headers: {
            authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: "grant_type=client_credentials",
        })
      ).status !== 401;
    expect(await authenticates(first)).toBe(false);
    expect(await authenticates(second)).toBe(true);

    // The console's session signed in 11 minutes ago: the deletion asks to confirm it's them, then goes through when repeated.
    await ageConsoleSignIn(admin.account.sub, 11 * 60);
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByRole("alert").filter({ hasText: "Confirm it's you" }).waitFor();
    expect((await read(`${issuer}/admin/api/v3/clients/${id}`, clients)).status).toBe(200);
    await page.getByRole("button", { name: "Confirm it's you" }).click();
    await passSignIn(page, admin);
    await heading(page)
      .filter({ hasText: `Applications: ${id}` })
      .waitFor();
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "The application was deleted." }).waitFor();
    expect((await read(`${issuer}/admin/api/v3/clients/${id}`, clients)).status).toBe(404);
    await context.close();
  });

  it("reaches every screen with the keyboard alone, focus landing on each screen's heading, in both languages", async () => {
    const admin = await person("APP_ADMIN");
    const { context, page } = await openConsole(admin);
    for (const [link, title] of [
      ["Applications", "Applications"],
      ["Groups", "Groups"],
      ["Rights", "Rights"],
      ["Users", "Users"],
    ]) {
      await page.locator("body").focus();
      for (let presses = 0; presses < 40 && (await focusedText(page)) !== link; presses++)
        await page.keyboard.press("Tab");
      expect(await focusedText(page)).toBe(link);
      await page.keyboard.press("Enter");
      await heading(page).filter({ hasText: title }).waitFor();
      await expect.poll(() => focusedText(page)).toBe(title);
      await expectAccessible(page);
      await picture(page, `${link.toLowerCase()}-en`);
    }
    await page.getByLabel("Language").selectOption("ru");
    await heading(page).filter({ hasText: "Пользователи" }).waitFor();
    expect(await page.evaluate<string>("document.documentElement.lang")).toBe("ru");
    expect(await page.getByRole("link", { name: "Приложения" }).count()).toBe(1);
    await expectAccessible(page);
    await picture(page, "users-ru");
    await context.close();
  });

  it("creates a group, adds and removes a member, and grants and revokes a right: the API reads each back", async () => {
    const admin = await person("APP_ADMIN");
    const member = await seedAccount({ given_name: "Boris", family_name: uniqueId("Member") }, PASSWORD);
    const { context, page } = await openConsole(admin);
    const groupId = uniqueId("team-");

    await page.getByRole("link", { name: "Groups" }).click();
    await page.getByLabel("Group id").fill(groupId);
    await page.getByLabel("Attributes (JSON object)").fill('{"name": "Support team"}');
    await page.getByRole("button", { name: "Create" }).click();
    await heading(page)
      .filter({ hasText: `Groups: ${groupId}` })
      .waitFor();
    await page.getByLabel("Account identifier").fill(member.sub);
    await page.getByRole("button", { name: "Add member" }).click();
    await page.getByRole("cell", { name: "Boris Ivanovich" }).first().waitFor();
    await expectAccessible(page);
    const members = await read(`${issuer}/api/v2/grps/${groupId}/members?profile=org`, ["svc_groups"]);
    expect(members.body).toEqual([{ subjectId: member.sub }]);
    await page.getByRole("button", { name: `Remove: ${member.sub}` }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await read(`${issuer}/api/v2/grps/${groupId}/members?profile=org`, ["svc_groups"])).body).toEqual([]);

    await page.getByRole("link", { name: "Rights" }).click();
    await heading(page).filter({ hasText: "Rights" }).waitFor();
    await expectAccessible(page);
    const form = page.getByRole("region", { name: "Grant or revoke" });
    await form.getByLabel("Subject", { exact: true }).fill(member.sub);
    await form.getByLabel("Object: Kind").selectOption("grps");
    await form.getByLabel("Object", { exact: true }).fill(groupId);
    await form.getByLabel("Group profile (for a group)").fill("org");
    await form.getByLabel("Rights (separated by spaces)").fill("ORG_ADMIN");
    await form.getByLabel("Tags (separated by spaces)").fill("support");
    await form.getByRole("button", { name: "Grant" }).click();
    await page.getByRole("status").filter({ hasText: "Granted." }).waitFor();
    expect((await read(`/rights/of/${member.sub}`, ["svc_rights_full_access"])).body).toEqual({
      [`grps|${groupId}|org`]: { ORG_ADMIN: ["support"] },
    });
    await form.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("status").filter({ hasText: "Revoked." }).waitFor();
    expect((await read(`/rights/of/${member.sub}`, ["svc_rights_full_access"])).body).toEqual({});
    await context.close();
  });
});

describe("a read-only operator", () => {
  it("sees change buttons disabled with the reason, and when a change is sent anyway the API refuses it and the screen says so", async () => {
    const monitor = await person("SYS_MON");
    const target = await seedAccount({ family_name: uniqueId("Sidorova") }, PASSWORD);
    const { context, page } = await openConsole(monitor);
    await expect.poll(() => page.getByText(/\(read-only\)/).count()).toBe(1);
    await page.evaluate(`location.hash = "#/users/${target.sub}"`);
    const lock = page.getByRole("button", { name: "Lock", exact: true });
    await lock.waitFor();
    expect(await lock.isDisabled()).toBe(true);
    expect(await page.locator(`#${await lock.getAttribute("aria-describedby")}`).textContent()).toMatch(
      /read-only operator/,
    );
    await expectAccessible(page);
    // The button's lock is the page's; the service's refusal is what counts.
    await lock.evaluate((button) => {
      (button as unknown as { disabled: boolean }).disabled = false;
    });
    await lock.click();
    await page.getByRole("alert").filter({ hasText: "The service refused this change" }).waitFor();
    expect((await read(`/users/${target.sub}`, ["svc_api_sys_users"])).body.locked).toBe(false);
    await context.close();
  });
});

describe("a person who is not an operator", () => {
  it("cannot open the console: it says plainly that the account is not an operator", async () => {
    const plain = await person();
    const context = await browser().newContext({ locale: "en-US", bypassCSP: true });
    const page = await context.newPage();
    await page.goto(consoleUrl());
    const refusal = page.getByRole("alert").filter({ hasText: "Your account is not an operator of this service." });
    await page.getByLabel(/login/i).fill(plain.account.sub);
    await page.getByLabel(/^password$/i).fill(PASSWORD);
    await page.getByRole("button", { name: /^sign in$/i }).click();
    const code = page.getByLabel(/authenticator app/i);
    await refusal.or(code).first().waitFor();
    if (await code.count()) {
      await code.fill(await freshCode(plain));
      await page.getByRole("button", { name: /^sign in$/i }).click();
    }
    await refusal.waitFor();
    expect(await page.getByRole("link", { name: "Users" }).count()).toBe(0);
    await expectAccessible(page);
    await context.close();
  });
});

describe("the console before anyone signs in", () => {
  it("asks the provider's authorization endpoint as svc-console, with PKCE S256, state, nonce and prompt=none first", async () => {
    // Under the console's own CSP: the script runs without 'unsafe-inline' (the other pages bypass it for axe).
    const context = await browser().newContext({ locale: "en-US" });
    const page = await context.newPage();
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      authorization_endpoint: string;
    };
    const asked = new Promise<URL>((resolve) =>
      page.route(
        (url) => url.href.startsWith(`${discovery.authorization_endpoint}?`),
        async (route) => {
          resolve(new URL(route.request().url()));
          await route.fulfill({ status: 200, contentType: "text/html", body: "<title>held</title>" });
        },
      ),
    );
    await page.goto(`${consoleUrl()}#/clients`);
    const url = await asked;
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: "code",
      client_id: "svc-console",
      redirect_uri: consoleUrl(),
      scope: "openid profile svc_console",
      code_challenge_method: "S256",
      prompt: "none",
      ui_locales: "en",
    });
    for (const name of ["state", "nonce", "code_challenge"]) expect(url.searchParams.get(name)).toMatch(/^[\w-]{43}$/);
    await context.close();
  });

  it("when the provider answers access_denied, it says the account is not an operator, and keeps nothing in storage", async () => {
    const context = await browser().newContext({ locale: "en-US", bypassCSP: true });
    const page = await context.newPage();
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      authorization_endpoint: string;
    };
    // The provider's refusal, as RFC 6749 4.1.2.1 sends it back to the redirect URI with the state.
    await page.route(
      (url) => url.href.startsWith(`${discovery.authorization_endpoint}?`),
      async (route) => {
        const asked = new URL(route.request().url());
        const back = new URL(asked.searchParams.get("redirect_uri") as string);
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("state", asked.searchParams.get("state") as string);
        await route.fulfill({ status: 302, headers: { location: back.toString() } });
      },
    );
    await page.goto(consoleUrl());
    await page.getByRole("alert").filter({ hasText: "Your account is not an operator of this service." }).waitFor();
    expect(new URL(page.url()).search).toBe("");
    expect(await page.evaluate<string[][]>("[Object.keys(localStorage), Object.keys(sessionStorage)]")).toEqual([
      [],
      [],
    ]);
    await expectAccessible(page);
    await context.close();
  });
});
