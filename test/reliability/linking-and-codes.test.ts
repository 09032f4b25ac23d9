import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import type { Account } from "../../lib/domain/accounts/account";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { invoke, seedAccount, uniqueId, userBearer } from "../support/fixtures";
import { useBindingProvider } from "../support/oauth-provider";
import { lastCode, outbox } from "../support/outbox";
import { basicAuthorization, prepareRequest, request } from "../support/requests";
import { startTally } from "../support/tally";

/**
 * Issue 21, findings 5, 6 and the contact part of 7, as attacks: a bind link opened by
 * another person's browser (login CSRF on linking), contact-change codes sent without
 * limit (SMS bombing and pumping, fresh attempts per resend), and a contact change that
 * tells at once whether an address belongs to another account.
 */

const tally = startTally(import.meta.filename);
const PASSWORD = "Linking-And-Codes-Password-1";
const CALLBACK = "https://app.example/linked";
const bound = useBindingProvider(CALLBACK);

const newPhone = () => `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`;
type Field = "email" | "phone_number";

/** A user asks for a contact change with a code (interface §4.6), as its application would. */
async function changeContact(account: Account, field: Field, value: string) {
  const result = await request(
    "users",
    field === "email" ? "events/users/change-email-with-code.json" : "events/users/change-phone-with-code.json",
    {
      params: { subjectId: instanceIdOf(account.sub) },
      authorization: await userBearer(account.sub, ["svc_api_user_chg"]),
      body: { [field]: { value, vrf: false } },
    },
  );
  tally.answered(result.statusCode);
  return result;
}

async function confirmContact(account: Account, field: Field, state: string, code: string) {
  const result = await request(
    "users",
    field === "email" ? "events/users/validate-email.json" : "events/users/validate-mobile.json",
    {
      params: { state },
      values: { state, code },
      authorization: await userBearer(account.sub, ["svc_api_user_chg"]),
      body: { cmd: "code", value: code },
    },
  );
  tally.answered(result.statusCode);
  return result;
}

const stateOf = (json: Record<string, unknown>) =>
  (json.notes as { actions: Array<{ state: string; attempts_left: number }> } | undefined)?.actions[0];

describe("contact change: whether an address is taken is told only to whoever holds it (finding 7)", () => {
  for (const field of ["email", "phone_number"] as const) {
    it(`when a user asks for another account's ${field}, it answers as for a free one, and refuses only the right code`, async () => {
      const owner = await seedAccount({}, PASSWORD);
      const account = await seedAccount({}, PASSWORD);
      const taken = owner[field]?.value as string;
      const free = field === "email" ? `${uniqueId("free")}@example.com` : newPhone();
      const toFree = await changeContact(account, field, free);
      const toTaken = await changeContact(account, field, taken);
      tally.badInput();
      await tally.invariant(() => {
        expect(toTaken.statusCode, toTaken.body).toBe(toFree.statusCode);
        expect(Object.keys(toTaken.json).sort()).toEqual(Object.keys(toFree.json).sort());
        expect(stateOf(toTaken.json)?.attempts_left).toBe(stateOf(toFree.json)?.attempts_left);
      });
      // Only the holder of the address gets the code; with it, uniqueness still holds.
      const confirmed = await confirmContact(account, field, stateOf(toTaken.json)?.state as string, lastCode(taken));
      await tally.invariant(async () => {
        expect(confirmed.statusCode).toBe(400);
        expect(confirmed.json).toMatchObject({ error: "contact_use_violation" });
        expect(await services().accounts.claimOwner(field, taken)).toBe(owner.sub);
        expect((await services().accounts.get(account.sub))?.[field]?.value).toBe(account[field]?.value);
      });
    });
  }
});

describe("contact change: codes are capped per account and per address (finding 6)", () => {
  for (const field of ["email", "phone_number"] as const) {
    it(`when one account asks for seven ${field} codes to one address in a row, few go out and the rest are refused 429`, async () => {
      const account = await seedAccount({}, PASSWORD);
      const target = field === "email" ? `${uniqueId("bomb")}@example.com` : newPhone();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) statuses.push((await changeContact(account, field, target)).statusCode);
      tally.badInput(7);
      await tally.invariant(() => {
        expect(outbox(target).length, `statuses ${statuses}`).toBeLessThan(2);
        expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
        expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
      });
    });
  }

  it("when one account asks for codes to many addresses, the account's cap stops it (SMS pumping)", async () => {
    const account = await seedAccount({}, PASSWORD);
    const targets = Array.from({ length: 15 }, () => newPhone());
    const statuses: number[] = [];
    for (const target of targets) statuses.push((await changeContact(account, "phone_number", target)).statusCode);
    tally.badInput(targets.length);
    await tally.invariant(() => {
      const sent = targets.filter((t) => outbox(t).length > 0).length;
      expect(sent).toBeLessThanOrEqual(10);
      expect(statuses.slice(-1)).toEqual([429]);
    });
  });

  it("when many accounts ask for codes to one phone, the address's cap stops them (SMS bombing)", async () => {
    const target = newPhone();
    const accounts = await Promise.all(Array.from({ length: 6 }, () => seedAccount({}, PASSWORD)));
    const statuses: number[] = [];
    for (const account of accounts) statuses.push((await changeContact(account, "phone_number", target)).statusCode);
    tally.badInput(accounts.length);
    await tally.invariant(() => {
      expect(outbox(target).length, `statuses ${statuses}`).toBe(1);
      expect(statuses.filter((s) => s === 429).length).toBe(accounts.length - 1);
    });
  });

  it("when codes to one address are spent and asked for again, the attempts left carry over", async () => {
    const account = await seedAccount({}, PASSWORD);
    const target = `${uniqueId("guess")}@example.com`;
    const first = await changeContact(account, "email", target);
    const state = stateOf(first.json)?.state as string;
    const wrong = lastCode(target) === "000000" ? "111111" : "000000";
    for (let i = 0; i < 3; i++) await confirmContact(account, "email", state, wrong);
    tally.badInput(3);
    const again = await changeContact(account, "email", target);
    tally.badInput();
    await tally.invariant(() => {
      // Refused (no fresh code), or a new state that holds no fresh attempts.
      if (again.statusCode === 200) expect(stateOf(again.json)?.attempts_left).toBe(0);
      else expect(again.statusCode).toBe(429);
      expect(outbox(target).length).toBe(1);
    });
  });
});

describe("bind: the link is made only for the browser of the account's owner (finding 5)", () => {
  /** The attacker starts a bind for its own account, as its application would. */
  async function attackerBind() {
    const attacker = await seedAccount({}, PASSWORD);
    const started = await request("federation", "events/federation/bind-user-basic.json", {
      authorization: basicAuthorization(attacker.sub, PASSWORD),
      body: { fp: "oidc:mock", callback: CALLBACK, clientId: bound.web.clientId },
    });
    tally.answered(started.statusCode);
    expect(started.statusCode).toBe(200);
    return { attacker, redirectTo: started.json.redirectTo as string };
  }

  /** A browser: its cookies, and our routes answered by the handlers. */
  function browser() {
    const jar = new Map<string, string>();
    return {
      jar,
      async ours(url: URL, form?: Record<string, string>) {
        const sample = form ? "events/federation/confirm-link-forged.json" : "events/federation/callback.json";
        const event = await prepareRequest(sample, {
          ...(form ? { body: new URLSearchParams(form).toString() } : { query: Object.fromEntries(url.searchParams) }),
          values: { state: "unused", providerCode: "unused" },
        });
        event.cookies = [...jar].map(([k, v]) => `${k}=${v}`);
        const result = await invoke("federation", event);
        tally.answered(result.statusCode);
        for (const cookie of result.cookies ?? []) {
          const [pair] = cookie.split(";");
          const eq = pair.indexOf("=");
          jar.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        return result;
      },
    };
  }

  /**
   * The victim's browser, signed in at the provider, follows a link: every redirect is
   * followed, our own routes through the handlers; it stops at a page or at the application.
   */
  async function victimBrowserOpens(link: string, victim = browser()) {
    let url = new URL(link);
    for (let hop = 0; hop < 10; hop++) {
      if (url.origin === bound.provider.url) {
        const answer = await fetch(url, { redirect: "manual" });
        const location = answer.headers.get("location");
        if (!location) return { status: answer.status, body: await answer.text() };
        url = new URL(location);
        continue;
      }
      if (url.origin !== "https://api.example.com") return { status: 302, location: url.toString(), body: "" };
      const result = await victim.ours(url);
      const location = result.headers?.location;
      if (!location) return { status: result.statusCode, body: result.body };
      url = new URL(location);
    }
    throw new Error("too many redirects");
  }

  /** The hidden fields of the confirmation page's form. */
  function formOf(page: string): Record<string, string> {
    const field = (name: string) => page.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? "";
    return { confirmation: field("confirmation"), csrf: field("csrf") };
  }

  it("when the victim's browser opens the attacker's bind link, the victim's external account is not linked to the attacker", async () => {
    const { attacker, redirectTo } = await attackerBind();
    bound.provider.actAs(uniqueId("victim-ext"), "Victim at the provider");
    const opened = await victimBrowserOpens(redirectTo);
    tally.badInput();
    await tally.invariant(async () => {
      expect(await services().federation.listLinks(attacker.sub), JSON.stringify(opened)).toEqual([]);
    });
  });

  it("when the victim, on the confirmation page the attacker's link led to, types its own password, nothing is linked", async () => {
    const { attacker, redirectTo } = await attackerBind();
    const victim = await seedAccount({}, "Victims-Own-Password-2");
    bound.provider.actAs(uniqueId("victim-ext"), "Victim at the provider");
    const tab = browser();
    const page = await victimBrowserOpens(redirectTo, tab);
    const confirmed = await tab.ours(new URL("https://api.example.com/svc/api/v2/users/current/fa/confirm"), {
      ...formOf(page.body),
      password: "Victims-Own-Password-2",
    });
    tally.badInput();
    await tally.invariant(async () => {
      expect(confirmed.statusCode).toBe(303);
      expect(confirmed.headers.location).toMatch(/^https:\/\/app\.example\/linked\?error=access_denied/);
      expect(await services().federation.listLinks(attacker.sub)).toEqual([]);
      expect(await services().federation.listLinks(victim.sub)).toEqual([]);
    });
  });

  it("when the attacker replays the confirmation form in another browser, it is refused", async () => {
    const { attacker, redirectTo } = await attackerBind();
    bound.provider.actAs(uniqueId("victim-ext"));
    const page = await victimBrowserOpens(redirectTo);
    // Without the victim's CSRF cookie, even the attacker's own password does not confirm.
    const replay = await browser().ours(new URL("https://api.example.com/svc/api/v2/users/current/fa/confirm"), {
      ...formOf(page.body),
      password: PASSWORD,
    });
    tally.badInput();
    await tally.invariant(async () => {
      expect(replay.statusCode).toBe(400);
      expect(await services().federation.listLinks(attacker.sub)).toEqual([]);
    });
  });
});
