import { describe, expect, it, vi } from "vitest";
import { services } from "../../lib/container";
import { useAdminConsole } from "../support/admin-console";
import { seedAccount, uniqueId } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";

/**
 * The account page's Groups section (docs/console.md) in chromium: the account's groups
 * from GET /svc/api/v3/users/{subjectId}/groups, added and removed through the group
 * member calls, each change read back through the API.
 */

const { issuer, read, send, person, openConsole, heading, expectAccessible } = await useAdminConsole();

// The sign-in waits for the authenticator's next 30-second code, and axe-core runs in both languages.
vi.setConfig({ testTimeout: 120_000 });

/** A group of profile org through the API, with `member` in it when given. */
async function newGroup(name?: string, member?: string): Promise<string> {
  const id = uniqueId("team-");
  expect(
    await send("POST", `${issuer}/api/v2/grps`, ["svc_groups"], { profile: "org", id, ...(name && { name }) }),
  ).toBe(201);
  if (member) {
    const added = [{ subjectId: member }];
    expect(await send("POST", `${issuer}/api/v2/grps/${id}/members/add?profile=org`, ["svc_groups"], added)).toBe(200);
  }
  return id;
}

const groupsOf = async (sub: string) =>
  ((await read(`/users/${sub}/groups`, ["svc_groups"])).body.groups as { id: string; profile: string }[]).map(
    (g) => `${g.profile}/${g.id}`,
  );

describe("the account page's groups", () => {
  it("lists the account's groups with their names and links, adds it to a group and removes it, in English and Russian", async () => {
    const admin = await person("APP_ADMIN");
    const target = await seedAccount({ given_name: "Vera", family_name: uniqueId("Member") }, PASSWORD);
    const named = await newGroup("Support team", target.sub);
    const bare = await newGroup();
    const { context, page } = await openConsole(admin);
    await page.evaluate(`location.hash = "#/users/${target.sub}"`);
    await heading(page).filter({ hasText: "Account: Vera" }).waitFor();
    const groups = page.getByRole("table", { name: "Groups" });
    await groups.getByRole("cell", { name: "Support team" }).waitFor();
    expect(await groups.getByRole("link", { name: named }).getAttribute("href")).toBe(`#/groups/org/${named}`);

    // Added with the keyboard: the fields, then the submit, reached by Tab.
    await page.getByLabel("Profile", { exact: true }).fill("org");
    await page.getByLabel("Group id").fill(bare);
    await page.getByLabel("Group id").press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.textContent ?? ''")).toBe("Add to group");
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "The account was added to the group." }).waitFor();
    await groups.getByRole("link", { name: bare }).waitFor();
    expect(await groupsOf(target.sub)).toEqual([`org/${bare}`, `org/${named}`].sort());
    const members = await read(`${issuer}/api/v2/grps/${bare}/members?profile=org`, ["svc_groups"]);
    expect(members.body).toEqual([{ subjectId: target.sub }]);
    await expectAccessible(page);

    await page.getByRole("button", { name: `Remove from group: org/${named}` }).click();
    await page.getByRole("status").filter({ hasText: "The account was removed from the group." }).waitFor();
    expect(await groupsOf(target.sub)).toEqual([`org/${bare}`]);
    expect(await groups.getByRole("link", { name: named }).count()).toBe(0);

    // A group that does not exist: the service's answer is on the screen, and nothing is added.
    await page.getByLabel("Group id").fill("no-such-group");
    await page.getByRole("button", { name: "Add to group" }).click();
    await page.getByRole("alert").filter({ hasText: "no group has this id in this profile" }).waitFor();
    expect(await groupsOf(target.sub)).toEqual([`org/${bare}`]);

    await page.getByLabel("Language").selectOption("ru");
    await page.getByRole("table", { name: "Группы" }).getByRole("link", { name: bare }).waitFor();
    await page.getByRole("button", { name: `Убрать из группы: org/${bare}` }).waitFor();
    await expectAccessible(page);

    // The group's link leads to its screen.
    await page.getByRole("link", { name: bare }).click();
    await heading(page).filter({ hasText: bare }).waitFor();
    await context.close();
  });
});

describe("a read-only operator on the account page", () => {
  it("sees add and remove disabled with the reason, a change sent anyway refused by the API and said on the screen, and pages through 101 groups", async () => {
    const monitor = await person("SYS_MON");
    const target = await seedAccount({ family_name: uniqueId("Sidorova") }, PASSWORD);
    const id = await newGroup("Readers", target.sub);
    const { context, page } = await openConsole(monitor);
    await page.evaluate(`location.hash = "#/users/${target.sub}"`);
    const remove = page.getByRole("button", { name: `Remove from group: org/${id}` });
    await remove.waitFor();
    const add = page.getByRole("button", { name: "Add to group" });
    for (const button of [remove, add]) {
      expect(await button.isDisabled()).toBe(true);
      expect(await page.locator(`#${await button.getAttribute("aria-describedby")}`).textContent()).toMatch(
        /read-only operator/,
      );
    }
    await expectAccessible(page);
    // The button's lock is the page's; the service's refusal is what counts.
    await remove.evaluate((button) => {
      (button as unknown as { disabled: boolean }).disabled = false;
    });
    await remove.click();
    await page.getByRole("alert").filter({ hasText: "The service refused this change" }).waitFor();
    expect(await groupsOf(target.sub)).toEqual([`org/${id}`]);

    // 100 groups more than the one: a page of 100, then the next page with the last, and back.
    const now = Math.floor(Date.now() / 1000);
    // One at a time: DynamoDB Local refuses connections under a burst of 200 writes.
    for (let i = 0; i < 100; i++) {
      const more = `${id}-${String(i).padStart(3, "0")}`;
      await services().groups.create({ id: more, profile: "org", attributes: {}, createdAt: now, updatedAt: now });
      await services().groups.addMembers("org", more, [target.sub], now);
    }
    await page.reload();
    const rows = page.getByRole("table", { name: "Groups" }).getByRole("row");
    await page.getByRole("navigation", { name: "Groups: Page" }).getByRole("link", { name: "Next page" }).click();
    await page.getByRole("link", { name: "First page" }).waitFor();
    expect(await rows.count()).toBe(2);
    expect(
      await page
        .getByRole("table", { name: "Groups" })
        .getByRole("link", { name: `${id}-099` })
        .count(),
    ).toBe(1);
    await page.getByRole("link", { name: "First page" }).click();
    await page.getByRole("link", { name: "Next page" }).waitFor();
    expect(await rows.count()).toBe(101);
    await context.close();
  });
});
