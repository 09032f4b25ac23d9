import { describe, expect, it, vi } from "vitest";
import { services } from "../../lib/container";
import { useAdminConsole } from "../support/admin-console";
import { createClient, seedAccount, uniqueId } from "../support/fixtures";
import { signedIn as passwordGrant } from "../support/login";

/**
 * The admin console's Keys and Activity screens in chromium (docs/console.md): each shows
 * what the API holds, a rotation changes what the API then lists, and the dashboard's
 * counts are the recorded events'.
 */

const { issuer, read, person, openConsole, ageConsoleSignIn, heading, expectAccessible, picture } =
  await useAdminConsole();

// A sign-in again waits for the authenticator's next 30-second code, and axe-core runs on every screen.
vi.setConfig({ testTimeout: 120_000 });

interface KeyView {
  kid: string;
  alg: string;
  state: string;
}

const keyList = async () => (await read(`${issuer}/admin/api/v3/keys`, ["svc_api_sys_keys"])).body.keys as KeyView[];

describe("the Keys screen", () => {
  it("lists the keys with their states, and a staged rotation publishes new ones the API then lists as next", async () => {
    const admin = await person("APP_ADMIN");
    const { context, page } = await openConsole(admin);
    await page.getByRole("link", { name: "Keys" }).click();
    await heading(page).filter({ hasText: "Signing keys" }).waitFor();
    const before = await keyList();
    for (const key of before) await page.getByRole("cell", { name: key.kid }).waitFor();
    await expectAccessible(page);
    await picture(page, "keys-en");

    await page.getByRole("button", { name: "Rotate (staged)" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Rotate (staged)" }).click();
    await page.getByRole("status").filter({ hasText: "Rotated" }).waitFor();
    const after = await keyList();
    const added = after.filter((key) => !before.some((old) => old.kid === key.kid));
    expect(added.map((key) => key.state)).toEqual(["next", "next"]);
    for (const key of added) await page.getByRole("cell", { name: key.kid }).waitFor();
    await context.close();
  });

  it("asks an operator who signed in over 10 minutes ago to confirm it's them before an emergency rotation", async () => {
    const admin = await person("APP_ADMIN");
    const { context, page } = await openConsole(admin);
    await page.goto(`${page.url().split("#")[0]}#/keys`);
    await heading(page).filter({ hasText: "Signing keys" }).waitFor();
    const before = await keyList();
    await ageConsoleSignIn(admin.account.sub, 11 * 60);
    await page.getByRole("button", { name: "Emergency rotation" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Emergency rotation" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /Confirm it's you/ })
      .waitFor();
    expect((await keyList()).map((key) => key.kid).sort()).toEqual(before.map((key) => key.kid).sort());
    await context.close();
  });

  it("leaves a read-only operator's rotation buttons disabled, with the reason", async () => {
    const monitor = await person("SYS_MON");
    const { context, page } = await openConsole(monitor);
    await page.goto(`${page.url().split("#")[0]}#/keys`);
    await heading(page).filter({ hasText: "Signing keys" }).waitFor();
    expect(await page.getByRole("button", { name: "Emergency rotation" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Rotate (staged)" }).isDisabled()).toBe(true);
    await page
      .getByText(/read-only operator/)
      .first()
      .waitFor();
    await context.close();
  });
});

describe("the Activity screen", () => {
  it("draws the last day's sign-ins as a chart whose text says the recorded total, and lists events newest first with filters", async () => {
    const admin = await person("APP_ADMIN");
    // A sign-in to count, through an application, as the dashboard counts them.
    const client = await createClient(["svc_api_user"]);
    await passwordGrant(
      { clientId: client.clientId, secret: client.secret as string },
      { username: admin.account.sub, password: "correct horse battery staple", scope: "svc_api_user" },
    ).catch(() => undefined);
    // A failed sign-in that put an account under a wait, as the password method records it.
    await services().events.record({
      sbj: admin.account.sub,
      ts: Date.now(),
      type: "login",
      cId: client.clientId,
      result: "invalid_credential",
      prms: { method: "password", limit: "wait" },
    });
    const { context, page } = await openConsole(admin);
    await page.getByRole("link", { name: "Activity" }).click();
    await heading(page).filter({ hasText: "Activity" }).waitFor();
    const summary = (await read(`${issuer}/admin/api/v3/security-events/summary?hours=24`, ["svc_api_sys_uaud"]))
      .body as {
      totals: { signIns: number; failedSignIns: number; throttled: number; registrations: number };
    };
    const throttled = page.getByRole("img", { name: /^Throttled, last 24 hours/ });
    await throttled.waitFor();
    const throttledShown = Number(/: (\d+) in total/.exec((await throttled.getAttribute("aria-label")) ?? "")?.[1]);
    expect(throttledShown).toBeGreaterThanOrEqual(1);
    expect(throttledShown).toBeGreaterThanOrEqual(summary.totals.throttled - 1);
    const chart = page.getByRole("img", { name: /^Sign-ins, last 24 hours/ });
    await chart.waitFor();
    const label = (await chart.getAttribute("aria-label")) ?? "";
    // Events recorded between the two reads can only raise the count.
    const shown = Number(/: (\d+) in total/.exec(label)?.[1]);
    expect(shown).toBeGreaterThanOrEqual(summary.totals.signIns);
    expect(shown).toBeGreaterThan(0);

    // The operator's own sign-in to the console is an event of their account: filter by it.
    await page.getByLabel("Account").fill(admin.account.sub);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/sbj=/);
    const rows = page.locator("table tbody tr");
    await rows.first().waitFor();
    const listed = (
      await read(`${issuer}/admin/api/v3/security-events?sbj=${encodeURIComponent(admin.account.sub)}&limit=50`, [
        "svc_api_sys_uaud",
      ])
    ).body as { events: { type: string; ts: number }[] };
    expect(listed.events.length).toBeGreaterThan(0);
    expect(await rows.count()).toBe(listed.events.length);
    expect(await rows.first().locator("td").nth(1).textContent()).toBe(listed.events[0].type);
    await expectAccessible(page);
    await picture(page, "activity-en");
    await context.close();
  });

  it("shows the screens in Russian", async () => {
    const admin = await person("APP_ADMIN");
    const { context, page } = await openConsole(admin);
    await page.getByLabel("Language").selectOption("ru");
    await page.getByRole("link", { name: "Активность" }).click();
    await heading(page).filter({ hasText: "Активность" }).waitFor();
    await page.getByRole("img", { name: /^Входы за последние 24 ч/ }).waitFor();
    await page.getByRole("img", { name: /^Ограничения за последние 24 ч/ }).waitFor();
    await expectAccessible(page);
    await page.getByRole("link", { name: "Поток событий" }).click();
    await heading(page).filter({ hasText: "События учётных записей" }).waitFor();
    await expectAccessible(page);
    await page.getByRole("link", { name: "Ключи" }).click();
    await heading(page).filter({ hasText: "Ключи подписи" }).waitFor();
    await expectAccessible(page);
    await context.close();
  });
});

describe("the Event stream screen", () => {
  it("lists the kept identity events newest first, filters by subject and type, and links an account to its page", async () => {
    const admin = await person("SYS_MON");
    const subject = uniqueId("stream-");
    const now = Date.now();
    const kept = ["session.started", "account.updated", "session.ended"].map((type, i) => ({
      id: `${uniqueId("rec")}:${type}`,
      type: `svc.identity.${type}`,
      time: new Date(now - (3 - i) * 1000).toISOString(),
      subject,
      data: { sub: subject, ...(type === "session.ended" && { reason: "logout" }) },
    }));
    await services().identityEvents.keep(kept);
    const { context, page } = await openConsole(admin);
    await page.getByRole("link", { name: "Event stream" }).click();
    await heading(page).filter({ hasText: "Identity events" }).waitFor();
    await page.getByLabel("Subject").fill(subject);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/subject=/);
    const rows = page.locator("table tbody tr");
    // Newest first, the type without its prefix, the data as published. Polled: the unfiltered
    // table may still be on the page, or be replaced, when the URL has changed.
    await expect
      .poll(() => rows.locator("td:nth-child(2)").allTextContents())
      .toEqual(["session.ended", "account.updated", "session.started"]);
    expect(await rows.count()).toBe(3);
    expect(await rows.first().locator("td").nth(3).textContent()).toBe(`sub: ${subject}; reason: logout`);
    await expectAccessible(page);
    await picture(page, "events-en");

    await page.getByLabel("Event type").fill("account.updated");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/type=account\.updated/);
    // The filtered page replaces the table: wait for it, not for the old rows to go.
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
    expect(await rows.first().locator("td").nth(1).textContent()).toBe("account.updated");
    await rows.first().getByRole("link", { name: subject }).click();
    await page.waitForURL(new RegExp(`#/users/${subject}`));
    await context.close();
  });
});

describe("deleting an account from its page", () => {
  it("deletes the account after the operator confirms, and the API no longer knows it", async () => {
    const admin = await person("APP_ADMIN");
    const leaver = await seedAccount({ given_name: "Lena", family_name: "Leaver" });
    const { context, page } = await openConsole(admin);
    await page.goto(`${page.url().split("#")[0]}#/users/${encodeURIComponent(leaver.sub)}`);
    await heading(page).filter({ hasText: "Lena" }).waitFor();
    await page.getByRole("button", { name: "Delete the account" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete the account" }).click();
    await page.getByRole("status").filter({ hasText: "The account is deleted." }).waitFor();
    await heading(page).filter({ hasText: "Users" }).waitFor();
    expect((await read(`/users/${leaver.sub}`, ["svc_api_sys_users"])).status).toBe(404);
    await context.close();
  });
});
