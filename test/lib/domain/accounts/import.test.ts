import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { config } from "../../../../lib/config";
import { accountTransfer, services } from "../../../../lib/container";
import { documentClient } from "../../../../lib/document-client";
import { type ImportLineResult, type ImportSummary, importAccounts } from "../../../../lib/domain/accounts/import";
import { type PasswordHash, verifyPassword } from "../../../../lib/domain/credentials/password-hash";
import { keys } from "../../../../lib/store/keys";
import { uniqueId } from "../../../support/fixtures";

const SAMPLE_FILE = "events/sample-users.jsonl";
const SAMPLE_PASSWORD = "correct horse battery staple";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function sampleLines(): AsyncIterable<string> {
  return createInterface({ input: createReadStream(SAMPLE_FILE, "utf8"), crlfDelay: Number.POSITIVE_INFINITY });
}

/** Runs an import and keeps every per-line result, in line order. */
async function runImport(lines: AsyncIterable<string> | Iterable<string>, concurrency = 2) {
  const results: ImportLineResult[] = [];
  const summary = await importAccounts(lines, {
    accounts: accountTransfer(),
    concurrency,
    onProgress: (_progress, result) => results.push(result),
  });
  results.sort((a, b) => a.line - b.line);
  return { summary, results };
}

function subOf(results: ImportLineResult[], line: number): string {
  const result = results.find((r) => r.line === line);
  if (!result || !("sub" in result)) throw new Error(`line ${line} was not imported: ${JSON.stringify(result)}`);
  return result.sub;
}

async function passwordCredential(sub: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: config().tableName, Key: keys.passwordCredential(sub), ConsistentRead: true }),
  );
  return Item;
}

describe("importing the sample file", () => {
  let first: { summary: ImportSummary; results: ImportLineResult[] };

  beforeAll(async () => {
    first = await runImport(sampleLines());
  });

  it("when the sample file is imported, it stores all three accounts with normalized contacts", async () => {
    expect(first.summary).toEqual({ imported: 4, unchanged: 0, failed: 0, errors: [] });
    const maria = await services().accounts.get("sample-user");
    expect(maria).toMatchObject({
      sub: "sample-user",
      family_name: "Ivanova",
      given_name: "Maria",
      middle_name: "Sergeevna",
      locked: false,
      phone_number: { value: "79991234567", verified: true },
      email: { value: "maria@example.com", verified: true },
    });
    expect(await services().accounts.get("sample-admin")).toMatchObject({
      family_name: "Smith",
      given_name: "John",
      email: { value: "john.smith@example.com", verified: true },
    });
  });

  it("when a line has no sub, it gets a generated UUID", async () => {
    const sub = subOf(first.results, 3);
    expect(sub).toMatch(UUID);
    const pavel = await services().accounts.get(sub);
    expect(pavel).toMatchObject({
      given_name: "Pavel",
      family_name: "Petrov",
      phone_number: { value: "79990001122", verified: false },
      locked: false,
    });
    expect(pavel?.email).toBeUndefined();
  });

  it("when a line has a password, it stores only a scrypt hash that verifies", async () => {
    const item = await passwordCredential("sample-user");
    expect(item).toMatchObject({ alg: "scrypt", N: 2 ** 17, r: 8, p: 1 });
    expect(JSON.stringify(item)).not.toContain(SAMPLE_PASSWORD);
    expect(await verifyPassword(SAMPLE_PASSWORD, item as unknown as PasswordHash)).toBe(true);
    expect(await verifyPassword("wrong horse battery staple", item as unknown as PasswordHash)).toBe(false);
  });

  it("when a line has no password, it stores no credential", async () => {
    expect(await passwordCredential("sample-admin")).toBeUndefined();
  });

  it("when the same file is imported again, lines with a sub are unchanged and the line without one is refused", async () => {
    const again = await runImport(sampleLines());
    expect(again.summary).toEqual({
      imported: 0,
      unchanged: 3,
      failed: 1,
      errors: [{ line: 3, message: "phone_number already used by another account" }],
    });
    expect(await services().accounts.get("sample-user")).toMatchObject({ given_name: "Maria" });
  });
});

describe("per-line errors", () => {
  it("when lines are malformed, mistyped or invalid, each gets its own message and the rest import", async () => {
    const good = uniqueId("good-");
    const lines = [
      JSON.stringify({ sub: good, given_name: "Good", email: `${good}@example.com` }),
      '{"given_name": "Broken"',
      "",
      JSON.stringify({ given_name: 5, locked: "yes" }),
      JSON.stringify({ givenName: "Camel" }),
      JSON.stringify({ phone_number: "12345" }),
      JSON.stringify({ email: { value: "not-an-address", verified: true } }),
      JSON.stringify({ email: { address: "x@example.com" } }),
      JSON.stringify({ sub: "-starts-with-dash" }),
      "   ",
      "[1, 2]",
    ];
    const { summary, results } = await runImport(lines);
    expect(summary.errors).toEqual([
      { line: 2, message: "not valid JSON (at character 24)" },
      { line: 4, message: "given_name must be a string; locked must be a boolean" },
      { line: 5, message: 'unknown field "givenName"' },
      { line: 6, message: "phone number must be (country code)XXXXXXXXXX" },
      { line: 7, message: "e-mail address is not valid" },
      { line: 8, message: 'email needs "value"; unknown field "address" in email' },
      { line: 9, message: expect.stringMatching(/^sub must be 1 to 128/) },
      { line: 11, message: "a line must be a JSON object" },
    ]);
    expect(summary.imported).toBe(1);
    expect(summary.failed).toBe(8);
    // Blank lines count for numbering but are neither imported nor failed.
    expect(results.map((r) => r.line)).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 11]);
    expect(await services().accounts.get(good)).toMatchObject({ email: { value: `${good}@example.com` } });
  });

  it("when a line with a password is rejected, the message never contains the password", async () => {
    const password = "Tr0ub4dor&3-never-echo";
    const lines = [
      `{"password": "${password}", oops}`,
      JSON.stringify({ password, unknown: true }),
      JSON.stringify({ password, phone_number: "1" }),
      JSON.stringify({ password: 12345 }),
      JSON.stringify({ password: "" }),
    ];
    const { summary } = await runImport(lines);
    expect(summary.failed).toBe(5);
    expect(summary.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^not valid JSON/),
      'unknown field "unknown"',
      "phone number must be (country code)XXXXXXXXXX",
      "password must be a string",
      "password must not be empty",
    ]);
    expect(JSON.stringify(summary)).not.toContain("Tr0ub4dor");
    expect(JSON.stringify(summary)).not.toContain("12345");
  });

  it("when one file repeats an e-mail and a phone in other spellings, the first line wins each", async () => {
    const email = `${uniqueId("dup")}@example.com`;
    const digits = `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`;
    const subs = [uniqueId("a-"), uniqueId("b-"), uniqueId("c-"), uniqueId("d-")];
    const spellings = [email, email.toUpperCase(), ` ${email} `, email];
    const phones = [digits, `+${digits}`, `+${digits[0]} (${digits.slice(1, 4)}) ${digits.slice(4)}`, digits];
    const lines = subs.map((sub, i) => JSON.stringify({ sub, email: spellings[i], phone_number: phones[i] }));
    // The first line has a password, so the later ones reach storage first unless they wait.
    lines[0] = JSON.stringify({ sub: subs[0], email, phone_number: digits, password: "first line wins" });
    const { summary, results } = await runImport(lines, 4);
    expect(summary).toEqual({
      imported: 1,
      unchanged: 0,
      failed: 3,
      errors: [2, 3, 4].map((line) => ({ line, message: "email and phone_number already used by another account" })),
    });
    expect(subOf(results, 1)).toBe(subs[0]);
    const stored = await Promise.all(subs.map((sub) => services().accounts.get(sub)));
    expect(stored.map((a) => a?.sub)).toEqual([subs[0], undefined, undefined, undefined]);
  });

  it("when lines share nothing, they are written concurrently", async () => {
    let inFlight = 0;
    let most = 0;
    const accounts = {
      read: async () => undefined,
      write: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((done) => setTimeout(done, 20));
        inFlight -= 1;
      },
    };
    const lines = Array.from({ length: 8 }, (_, i) => JSON.stringify({ given_name: `N${i}` }));
    const summary = await importAccounts(lines, { accounts, concurrency: 3 });
    expect(summary.imported).toBe(8);
    expect(most).toBe(3);
  });

  it("when progress is reported, it counts every non-blank line once", async () => {
    const seen: number[] = [];
    const summary = await importAccounts(["", JSON.stringify({ given_name: "A" }), "{", ""], {
      accounts: accountTransfer(),
      onProgress: (progress) => seen.push(progress.processed),
    });
    expect(seen).toEqual([1, 2]);
    expect(summary).toMatchObject({ imported: 1, failed: 1 });
  });
});
