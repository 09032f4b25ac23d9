import { describe, expect, it } from "vitest";
import { services } from "../../../../lib/container";
import { verifyUserPassword } from "../../../../lib/domain/login/verify-user-password";
import { roundTripCount } from "../../../../lib/store/client";
import { seedAccount } from "../../../support/fixtures";

const PASSWORD = "correct horse battery staple";
const now = () => Math.floor(Date.now() / 1000);
const check = (login: string, password = PASSWORD) =>
  verifyUserPassword(services().logins, login, password, ["198.51.100.99"], now());

describe("verifyUserPassword", () => {
  it("when the login is the sub and the password is right, it names the account in one read and takes one attempt", async () => {
    const account = await seedAccount({}, PASSWORD);
    const before = roundTripCount();
    expect(await check(account.sub)).toMatchObject({ ok: true, account: { sub: account.sub } });
    expect(roundTripCount() - before).toBe(2);
  });

  it("when the login is the e-mail in any case or the phone in any punctuation, it names the account in two", async () => {
    const account = await seedAccount({}, PASSWORD);
    const before = roundTripCount();
    expect(await check(` ${account.email?.value.toUpperCase()} `)).toMatchObject({
      ok: true,
      account: { sub: account.sub },
    });
    expect(roundTripCount() - before).toBe(3);
    const digits = account.phone_number?.value as string;
    const formatted = `+${digits[0]} (${digits.slice(1, 4)}) ${digits.slice(4, 7)}-${digits.slice(7)}`;
    expect(await check(formatted)).toMatchObject({ ok: true, account: { sub: account.sub } });
  });

  it("when the password is wrong or the login unknown, it is `wrong`, and each failure is counted", async () => {
    const account = await seedAccount({}, PASSWORD);
    expect(await check(account.sub, "not the password")).toMatchObject({
      ok: false,
      why: "wrong",
      account: { sub: account.sub },
    });
    expect(await check("nobody-at-all")).toEqual({ ok: false, why: "wrong", account: undefined });
    expect(await check("not a login at all!")).toEqual({ ok: false, why: "wrong", account: undefined });
    const noPassword = await seedAccount();
    expect(await check(noPassword.sub)).toMatchObject({ ok: false, why: "wrong" });
    const snapshot = await services().logins.snapshot(
      { sub: account.sub },
      ["198.51.100.99"],
      Math.floor(now() / 3600),
    );
    expect(snapshot.counters.consecutive).toBe(1);
    expect(snapshot.counters.ipHourly).toBeGreaterThanOrEqual(4);
  });

  it("when a login could be a sub and an e-mail at once, the sub is tried first", async () => {
    const bySub = await seedAccount({ sub: "maria@example.org", email: undefined }, PASSWORD);
    await seedAccount({ email: { value: "maria@example.org", verified: true } }, "other password");
    expect(await check("maria@example.org")).toMatchObject({ ok: true, account: { sub: bySub.sub } });
  });
});
