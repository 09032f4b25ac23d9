import { describe, expect, it } from "vitest";
import { authenticateUserPassword, loginCandidates } from "../../../../lib/domain/credentials/user-password";
import { services } from "../../../../lib/services";
import { roundTripCount } from "../../../../lib/store/client";
import { seedAccount } from "../../../support/fixtures";

const PASSWORD = "correct horse battery staple";
const check = (login: string, password = PASSWORD) => authenticateUserPassword(services().credentials, login, password);

describe("authenticateUserPassword", () => {
  it("when the login is the sub and the password is right, it names the account in one round trip", async () => {
    const account = await seedAccount({}, PASSWORD);
    const before = roundTripCount();
    expect(await check(account.sub)).toEqual({ ok: true, sub: account.sub });
    expect(roundTripCount() - before).toBe(1);
  });

  it("when the login is the e-mail in any case or the phone in any punctuation, it names the account in two", async () => {
    const account = await seedAccount({}, PASSWORD);
    const before = roundTripCount();
    expect(await check(` ${account.email?.value.toUpperCase()} `)).toEqual({ ok: true, sub: account.sub });
    expect(roundTripCount() - before).toBe(2);
    const digits = account.phone_number?.value as string;
    const formatted = `+${digits[0]} (${digits.slice(1, 4)}) ${digits.slice(4, 7)}-${digits.slice(7)}`;
    expect(await check(formatted)).toEqual({ ok: true, sub: account.sub });
  });

  it("when the password is wrong, it says so to the caller only", async () => {
    const account = await seedAccount({}, PASSWORD);
    expect(await check(account.sub, "not the password")).toEqual({ ok: false, reason: "wrong_password" });
    expect(await check(account.email?.value as string, "")).toEqual({ ok: false, reason: "wrong_password" });
  });

  it("when the login is unknown or the account has no password, it still checks a hash and refuses", async () => {
    const noPassword = await seedAccount();
    expect(await check("nobody-at-all")).toEqual({ ok: false, reason: "unknown_login" });
    expect(await check("nobody@example.com")).toEqual({ ok: false, reason: "unknown_login" });
    expect(await check("not a login at all!")).toEqual({ ok: false, reason: "unknown_login" });
    expect(await check(noPassword.sub)).toEqual({ ok: false, reason: "no_password" });
  });

  it("when the account is locked, it is refused; the lock is told only after the right password", async () => {
    const account = await seedAccount({ locked: true }, PASSWORD);
    expect(await check(account.sub)).toEqual({ ok: false, reason: "locked", sub: account.sub });
    expect(await check(account.sub, "guess")).toEqual({ ok: false, reason: "wrong_password" });
  });

  it("when a login could be a sub and an e-mail at once, the sub is tried first", async () => {
    const bySub = await seedAccount({ sub: "maria@example.org" }, PASSWORD);
    await seedAccount({ email: { value: "maria@example.org", verified: true } }, "other password");
    expect(await check("maria@example.org")).toEqual({ ok: true, sub: bySub.sub });
    expect(loginCandidates("Maria@Example.org")).toEqual({ sub: "Maria@Example.org", email: "maria@example.org" });
    expect(loginCandidates("+7 999 123-45-67")).toEqual({ phone: "79991234567" });
  });
});
