import { describe, expect, it } from "vitest";
import { defaultSettings } from "../../../../lib/config/settings";
import { hashPassword } from "../../../../lib/domain/credentials/password-hash";
import COMMON_PASSWORDS from "../../../../lib/domain/passwords/common-passwords.txt";
import { checkPassword, generatePassword, type PasswordPolicy } from "../../../../lib/domain/passwords/policy";
import { passwordPolicyError } from "../../../../lib/domain/passwords/violations";
import { errorResult } from "../../../../lib/http/error-body";

const base: PasswordPolicy = { ...defaultSettings.passwordPolicy, dictionary: false };
const fastHash = (p: string) => hashPassword(p, { N: 1024, r: 8, p: 1, keyLength: 32 });

describe("password policy rules (interface §7.2)", () => {
  it.each([
    ["to_short", { minLength: 10 }, "short-pw1", {}, { rule: "to_short", low: 10 }],
    ["to_long", { maxLength: 64 }, "x".repeat(65), {}, { rule: "to_long", high: 64 }],
    [
      "not_enough_groups",
      {
        groups: [
          { desc: "digits", chars: "0-9", min: 2 },
          { desc: "upper case", chars: "A-Z", min: 1 },
        ],
      },
      "lowercase-only-1",
      {},
      {
        rule: "not_enough_groups",
        no_matched_groups: [
          { desc: "digits", min_number_symbols: 2 },
          { desc: "upper case", min_number_symbols: 1 },
        ],
      },
    ],
    ["eq_current", {}, "Same-Password-9", { currentPassword: "Same-Password-9" }, { rule: "eq_current" }],
    [
      "not_enough_new_chars",
      { minNewChars: 3 },
      "abcdefgh1",
      { currentPassword: "abcdefgh2" },
      { rule: "not_enough_new_chars", minNew: 3 },
    ],
    ["in_stop_dic", { stopWords: ["acme"] }, "I-love-ACME-2026", {}, { rule: "in_stop_dic", stop_word: "acme" }],
    ["in_password_dic", { dictionary: true }, "Password1", {}, { rule: "in_password_dic" }],
    [
      "too_young",
      { minAgeSeconds: 86400 },
      "Brand-new-pass-7",
      { changedAt: 1000, now: 2000 },
      { rule: "too_young", minAgeInSec: 86400 },
    ],
    ["id_store", {}, "ivan.petrov-2026", { identity: { email: "ivan.petrov@example.com" } }, { rule: "id_store" }],
  ] as const)(
    "when a password breaks %s, it is reported with its params",
    async (_, policy, password, context, expected) => {
      const found = await checkPassword(password, { ...base, ...policy } as PasswordPolicy, context as never);
      expect(found).toEqual([expected]);
    },
  );

  it("when a password was used within historyDepth, it is in_password_history; beyond it, it is not", async () => {
    const history = [await fastHash("newest-9q"), await fastHash("older-one-7"), await fastHash("oldest-3x")];
    const policy = { ...base, historyDepth: 2 };
    expect(await checkPassword("older-one-7", policy, { history })).toEqual([{ rule: "in_password_history" }]);
    expect(await checkPassword("oldest-3x", policy, { history })).toEqual([]);
  });

  it("when the current password is known only by its hash, eq_current still applies", async () => {
    const currentHash = await fastHash("Current-pass-5");
    expect(await checkPassword("Current-pass-5", base, { currentHash })).toEqual([{ rule: "eq_current" }]);
  });

  it("when the defaults apply, length counts characters, not bytes, and common passwords are refused", async () => {
    const defaults = defaultSettings.passwordPolicy;
    expect(await checkPassword("пароль!", defaults)).toEqual([{ rule: "to_short", low: 8 }]);
    expect(await checkPassword("парольпароль", defaults)).toEqual([]);
    expect(await checkPassword("qwerty123", defaults)).toEqual([{ rule: "in_password_dic" }]);
    expect(await checkPassword("QWERTY123", defaults)).toEqual([{ rule: "in_password_dic" }]);
    expect(await checkPassword("correct horse battery staple", defaults)).toEqual([]);
  });
});

describe("the common-password list", () => {
  const dictionaryOnly: PasswordPolicy = { ...base, minLength: 1, groups: [], dictionary: true };
  const entries = COMMON_PASSWORDS.trimEnd().split("\n");
  const refusedAsCommon = async (password: string) =>
    (await checkPassword(password, dictionaryOnly)).some((v) => v.rule === "in_password_dic");

  it("when the list file is read, it is one distinct lower-case entry a line, ending in a line break", () => {
    // The check lower-cases the password and matches whole lines.
    expect(COMMON_PASSWORDS.endsWith("\n")).toBe(true);
    expect(entries.filter((e) => e === "" || e !== e.toLowerCase() || e.trim() !== e)).toEqual([]);
    expect(new Set(entries).size).toBe(entries.length);
  });

  it("when a password is the list's first or last entry, it is refused", async () => {
    expect(entries).toHaveLength(10000);
    expect(await refusedAsCommon(entries[0])).toBe(true);
    expect(await refusedAsCommon(entries[entries.length - 1].toUpperCase())).toBe(true);
  });

  it("when a password only contains an entry, spans two entries or is part of one, it is not refused", async () => {
    const long = entries.find(
      (e) => e.length >= 8 && !entries.includes(e.slice(1)) && !entries.includes(e.slice(0, -1)),
    );
    expect(long).toBeDefined();
    expect(await refusedAsCommon(`${entries[0]}\n${entries[1]}`)).toBe(false);
    expect(await refusedAsCommon((long as string).slice(1))).toBe(false);
    expect(await refusedAsCommon((long as string).slice(0, -1))).toBe(false);
    expect(await refusedAsCommon(`${entries[0]}${entries[1]}`)).toBe(entries.includes(`${entries[0]}${entries[1]}`));
  });
});

describe("password policy errors", () => {
  it("when one rule is broken, it is a top-level password_policy_violated at pos password", () => {
    const body = JSON.parse(errorResult(passwordPolicyError([{ rule: "to_short", low: 8 }]), "v3", "r").body);
    expect(body).toEqual({
      type: "input_error",
      error: "password_policy_violated",
      desc: "the password must have at least 8 characters",
      pos: "password",
      params: { rule: "to_short", low: 8 },
    });
  });

  it("when several are broken, they are wrapped in wrong_values", () => {
    const body = JSON.parse(
      errorResult(passwordPolicyError([{ rule: "to_short", low: 8 }, { rule: "in_password_dic" }]), "v3", "r").body,
    );
    expect(body.error).toBe("wrong_values");
    expect(body.errors.map((e: { params: { rule: string } }) => e.params.rule)).toEqual([
      "to_short",
      "in_password_dic",
    ]);
    expect(body.errors[0]).toMatchObject({ type: "input_error", error: "password_policy_violated", pos: "password" });
  });

  it("when the directory refuses it (id_store), it is top-level without the wrap, even beside other rules", () => {
    const body = JSON.parse(
      errorResult(passwordPolicyError([{ rule: "to_short", low: 8 }, { rule: "id_store" }]), "v3", "r").body,
    );
    expect(body).toEqual({
      type: "input_error",
      error: "password_policy_violated",
      desc: "the password must not contain the account's identifiers",
      params: { rule: "id_store" },
    });
  });
});

describe("breached passwords", () => {
  const lookups: string[] = [];
  const corpus = {
    async isBreached(password: string) {
      lookups.push(password);
      return password === "monkey island 1990";
    },
  };

  it("when every other rule passes, the password is looked up and a breached one is refused with its own rule", async () => {
    lookups.length = 0;
    const policy = defaultSettings.passwordPolicy;
    expect(await checkPassword("monkey island 1990", policy, { breachedPasswords: corpus })).toEqual([
      { rule: "breached_password" },
    ]);
    expect(await checkPassword("violet kettle river", policy, { breachedPasswords: corpus })).toEqual([]);
    expect(lookups).toEqual(["monkey island 1990", "violet kettle river"]);
  });

  it("when another rule refuses the password, it is not looked up", async () => {
    lookups.length = 0;
    expect(await checkPassword("xq7-vz", defaultSettings.passwordPolicy, { breachedPasswords: corpus })).toEqual([
      { rule: "to_short", low: 8 },
    ]);
    expect(lookups).toEqual([]);
  });

  it("when refused, it answers the v3 and v2 shapes of the other rules, with no params beside the rule", () => {
    const violation = [{ rule: "breached_password" } as const];
    expect(JSON.parse(errorResult(passwordPolicyError(violation), "v3", "r").body)).toEqual({
      type: "input_error",
      error: "password_policy_violated",
      desc: "the password appears in known data breaches",
      pos: "password",
      params: { rule: "breached_password" },
    });
    expect(JSON.parse(errorResult(passwordPolicyError(violation), "v2", "r").body)).toEqual({
      errors: [
        {
          code: "validation_error",
          desc: "the password appears in known data breaches",
          params: { field: "password", rule: "breached_password" },
        },
      ],
    });
  });
});

describe("generated passwords", () => {
  it("when generated for a policy with groups, they pass that policy", async () => {
    const policy: PasswordPolicy = {
      ...defaultSettings.passwordPolicy,
      minLength: 12,
      groups: [
        { desc: "digits", chars: "0-9", min: 2 },
        { desc: "special", chars: "!@#$%", min: 1 },
        { desc: "cyrillic", chars: "а-я", min: 1 },
      ],
    };
    for (let i = 0; i < 20; i++) {
      const password = generatePassword(policy, (max) => Math.floor(Math.random() * max));
      expect(await checkPassword(password, policy)).toEqual([]);
    }
  });
});
