import { randomUUID } from "node:crypto";
import { Ajv, type ErrorObject } from "ajv";
import { parseHashString } from "../credentials/foreign-hash";
import { hashPassword, type PasswordHash, type StoredPasswordHash, verifyPassword } from "../credentials/password-hash";
import type { Account } from "./account";
import { type ExportLine, lineExtras, recordToLine, type TotpSealing } from "./export-line";
import { exportLineSchema } from "./export-schema";
import type { SourceLine } from "./import-formats";
import { importedHashObject } from "./imported-hash";
import { type NewAccountInput, prepareNewAccount } from "./new-account";
import { AccountConflictError, type UniqueField } from "./ports";
import { type AccountRecord, AccountTooLargeError, type AccountTransferRepository } from "./transfer-ports";

/**
 * Bulk account import (`svc-admin users import`, docs/administration.md): one JSON object per line.
 * Every failure is reported per line in words an operator can act on; a password is
 * never echoed, not even in part, since import files come from other systems' dumps.
 */

/** A contact as a plain string, or as registration sends it (interface §2.1). */
const contactSchema = {
  // One schema for both forms: the object keywords apply only when the value is an
  // object, so each mistake gives one precise error instead of a oneOf pile-up.
  type: ["string", "object"],
  additionalProperties: false,
  required: ["value"],
  properties: { value: { type: "string" }, verified: { type: "boolean" } },
} as const;

/**
 * An export line (export-schema.ts) read back, or a line written by hand or converted from
 * another system: contacts may be plain strings, a plain `password` may come instead of a
 * hash, a hash may come in another system's string form, and only what is given is set.
 */
const lineSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...exportLineSchema.properties,
    sub: { type: "string" },
    phone_number: contactSchema,
    email: contactSchema,
    password: { type: "string", minLength: 1 },
    // Checked per algorithm in code, which names the field that is wrong.
    password_hash: { type: ["string", "object"] },
    password_history: { type: "array", items: { type: "object" } },
  },
} as const;

const validateLine = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(lineSchema);

type ContactField = string | { value: string; verified?: boolean };

type ImportLine = Partial<Omit<ExportLine, "email" | "phone_number" | "password_hash" | "password_history">> & {
  password_history?: Array<Record<string, unknown>>;
  phone_number?: ContactField;
  email?: ContactField;
  password?: string;
  password_hash?: string | Record<string, unknown>;
};

/** The field an error is about, as an operator would write it (`email.value`). */
function fieldName(instancePath: string): string {
  return instancePath.replace(/^\//, "").replaceAll("/", ".");
}

/** Built from paths and schema parameters only: ajv's data never reaches the message. */
function describeSchemaError(error: ErrorObject): string {
  const field = fieldName(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return field
        ? `unknown field "${params.additionalProperty}" in ${field}`
        : `unknown field "${params.additionalProperty}"`;
    case "required":
      return `${field} needs "${params.missingProperty}"`;
    case "minLength":
      return `${field} must not be empty`;
    case "type": {
      if (!field) return "a line must be a JSON object";
      const types = ([] as string[]).concat(params.type as string | string[]);
      if (types.includes("object") && types.includes("string")) {
        return `${field} must be a string or an object {"value": string, "verified": boolean}`;
      }
      return `${field} must be ${types[0] === "object" || types[0] === "integer" ? "an" : "a"} ${types.join(" or ")}`;
    }
    default:
      return `${field || "the line"} ${error.message ?? "is not valid"}`;
  }
}

/** V8 quotes part of the input in JSON.parse errors; only the position is safe to show. */
function describeJsonError(error: unknown): string {
  const position = /position (\d+)/.exec((error as Error).message);
  return position ? `not valid JSON (at character ${Number(position[1]) + 1})` : "not valid JSON";
}

function toContact(field: ContactField | undefined): NewAccountInput["email"] {
  if (field === undefined) return undefined;
  return typeof field === "string" ? { value: field } : field;
}

export type ParsedLine = { input: NewAccountInput; password?: string; line: ImportLine } | { error: string };

/** Parses and validates one line (no storage, no hashing). */
export function parseImportLine(text: string): ParsedLine {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { error: describeJsonError(error) };
  }
  if (!validateLine(data)) {
    const messages = [...new Set((validateLine.errors ?? []).map(describeSchemaError))];
    return { error: messages.join("; ") };
  }
  const line = data as ImportLine;
  const input: NewAccountInput = {
    sub: line.sub,
    family_name: line.family_name,
    given_name: line.given_name,
    middle_name: line.middle_name,
    locked: line.locked,
    phone_number: toContact(line.phone_number),
    email: toContact(line.email),
  };
  return line.password === undefined ? { input, line } : { input, password: line.password, line };
}

/** A hash as the line gives it: our object form, or another system's string form. */
function importedHash(value: string | Record<string, unknown>, field: string): StoredPasswordHash | string {
  const parsed = typeof value === "string" ? parseHashString(value) : value;
  if (!parsed)
    return `${field} is not a hash this import reads (bcrypt $2a$/$2b$/$2y$, argon2id PHC, pbkdf2_sha256$...)`;
  // String forms get the same checks and cost bounds as objects.
  return importedHashObject(parsed as unknown as Record<string, unknown>, field);
}

/** The account a line describes, beyond what a new account takes: times, state, hash, memberships... */
function recordOf(account: Account, line: ImportLine, sealing: TotpSealing | undefined): AccountRecord | string {
  if (line.password !== undefined && line.password_hash !== undefined)
    return "give password or password_hash, not both";
  const full: Account = { ...account };
  if (line.created_at !== undefined) full.createdAt = line.created_at;
  full.updatedAt = line.updated_at ?? full.createdAt;
  if (line.last_login_at !== undefined) full.lastLoginAt = line.last_login_at;
  if (line.state !== undefined) full.state = line.state;
  if (line.required_factor !== undefined) full.requiredFactor = line.required_factor;
  if (line.need_password_change !== undefined) full.needPasswordChange = line.need_password_change;
  if (line.methods_locked !== undefined) full.methodsLocked = line.methods_locked;
  let credential: AccountRecord["credential"];
  if (line.password_hash !== undefined) {
    const hash = importedHash(line.password_hash, "password_hash");
    if (typeof hash === "string") return hash;
    const history: StoredPasswordHash[] = [];
    for (const [i, old] of (line.password_history ?? []).entries()) {
      const checked = importedHash(old as unknown as Record<string, unknown>, `password_history.${i}`);
      if (typeof checked === "string") return checked;
      history.push(checked);
    }
    credential = {
      hash,
      changedAt: line.password_changed_at ?? full.createdAt,
      ...(history.length > 0 && { history }),
    };
  }
  try {
    return { account: full, ...(credential && { credential }), ...lineExtras(line, full.sub, sealing) };
  } catch (error) {
    return (error as Error).message;
  }
}

export type ImportLineResult = { line: number; sub: string; unchanged?: true } | { line: number; error: string };

export interface ImportDeps {
  accounts: Pick<AccountTransferRepository, "write" | "read">;
  /** Seals TOTP secrets of lines that carry them (an export --with-factors); absent, such lines fail. */
  sealing?: TotpSealing;
  /** Unix seconds; injectable so tests can pin createdAt. */
  now?: () => number;
  /** Identifier for lines without `sub`. */
  newSub?: () => string;
  hash?: (password: string) => Promise<PasswordHash>;
}

function conflictMessage(fields: UniqueField[]): string {
  const names = [...new Set(fields)];
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return `${list} already used by another account`;
}

type PlannedLine =
  | { line: number; error: string }
  | { line: number; account: Account; record: AccountRecord; password?: string; given: ImportLine };

/** Everything before storage: parse, validate, normalize (synchronous, so order is kept). */
function planLine(text: string, line: number, deps: ImportDeps): PlannedLine {
  const parsed = parseImportLine(text);
  if ("error" in parsed) return { line, error: parsed.error };
  const now = deps.now?.() ?? Math.floor(Date.now() / 1000);
  const prepared = prepareNewAccount(parsed.input, now, deps.newSub ?? randomUUID);
  if ("problems" in prepared) return { line, error: prepared.problems.map((p) => p.desc).join("; ") };
  const record = recordOf(prepared.account, parsed.line, deps.sealing);
  if (typeof record === "string") return { line, error: record };
  return { line, account: record.account, record, password: parsed.password, given: parsed.line };
}

const factorsIn = (line: ImportLine) => line.totps !== undefined || line.passkeys !== undefined;

/**
 * Whether the stored account is the one the line describes, so a rerun changes nothing and
 * reports nothing. What the line leaves to the import (times, sign-ins since) is taken from
 * the stored account; a plain password must match the stored hash.
 */
async function sameAsStored(planned: Extract<PlannedLine, { record: unknown }>, deps: ImportDeps): Promise<boolean> {
  const { given, password } = planned;
  const factors = factorsIn(given);
  const stored = await deps.accounts.read(planned.account.sub, factors);
  if (!stored) return false;
  const expected: AccountRecord = { ...planned.record, account: { ...planned.record.account } };
  if (given.created_at === undefined) {
    for (const field of ["createdAt", "updatedAt", "lastLoginAt", "state"] as const) {
      (expected.account as unknown as Record<string, unknown>)[field] = stored.account[field];
    }
  }
  if (password !== undefined) {
    if (!stored.credential || !(await verifyPassword(password, stored.credential.hash))) return false;
    expected.credential = stored.credential;
  }
  try {
    const print = (record: AccountRecord) => JSON.stringify(recordToLine(record, factors, deps.sealing));
    return print(expected) === print(stored);
  } catch {
    return false;
  }
}

async function storeLine(
  planned: PlannedLine,
  deps: ImportDeps,
  earlierClaims: Promise<unknown> = Promise.resolve(),
): Promise<ImportLineResult> {
  if ("error" in planned) return planned;
  const { line, account, password, record } = planned;
  try {
    const hash = password === undefined ? undefined : await (deps.hash ?? hashPassword)(password);
    await earlierClaims;
    // One transaction per account; the store retries transaction conflicts itself (lib/store/transact.ts).
    await deps.accounts.write(hash ? { ...record, credential: { hash, changedAt: account.createdAt } } : record);
    return { line, sub: account.sub };
  } catch (error) {
    if (error instanceof AccountConflictError) {
      if (error.fields.includes("sub") && (await sameAsStored(planned, deps))) {
        return { line, sub: account.sub, unchanged: true };
      }
      if (error.fields.length === 1 && error.fields[0] === "sub") {
        return { line, error: "sub already used by an account that differs from this line" };
      }
      return { line, error: conflictMessage(error.fields) };
    }
    if (error instanceof AccountTooLargeError) return { line, error: error.message };
    // Storage and hashing errors never carry the password: only its hash is sent.
    return { line, error: `not stored: ${(error as Error).message || (error as Error).name}` };
  }
}

/** Imports one line: validate, normalize, hash, then one transactional write. */
export async function importLine(text: string, line: number, deps: ImportDeps): Promise<ImportLineResult> {
  return storeLine(planLine(text, line, deps), deps);
}

/**
 * Lines of one file that claim the same sub, e-mail or phone are written in line order,
 * so the first line wins whatever the concurrency and a rerun reports the same lines.
 * Hashing still runs in parallel; only the writes wait.
 */
function createClaimOrder() {
  const last = new Map<string, Promise<void>>();
  return {
    /** Called in line order; `earlier` settles when every earlier line with a shared claim is written. */
    enter(account: Account): { earlier: Promise<unknown>; leave: () => void } {
      const claims = [`sub ${account.sub}`];
      if (account.email) claims.push(`email ${account.email.value}`);
      if (account.phone_number) claims.push(`phone ${account.phone_number.value}`);
      const earlier = Promise.all(claims.flatMap((claim) => last.get(claim) ?? []));
      let leave!: () => void;
      const written = new Promise<void>((done) => {
        leave = done;
      });
      for (const claim of claims) last.set(claim, written);
      return {
        earlier,
        leave: () => {
          leave();
          for (const claim of claims) if (last.get(claim) === written) last.delete(claim);
        },
      };
    },
  };
}

/** Lines of our format, or records another format's reader turned into lines (import-formats.ts). */
export type ImportSource = AsyncIterable<SourceLine> | Iterable<SourceLine>;

export interface ImportProgress {
  /** Lines finished so far (blank lines are not counted). */
  processed: number;
  imported: number;
  /** Lines whose account was already stored as the line describes it (a rerun). */
  unchanged: number;
  failed: number;
}

export interface ImportSummary {
  imported: number;
  unchanged: number;
  failed: number;
  /** In line order. */
  errors: Array<{ line: number; message: string }>;
}

export interface ImportOptions extends ImportDeps {
  /** Lines in flight at once; each may hold a scrypt hash (~128 MiB, ~0.3 s of CPU). */
  concurrency?: number;
  onProgress?: (progress: ImportProgress, result: ImportLineResult) => void;
}

/** Plans lines one at a time, in order; a line is only pulled when a worker is free for it. */
async function* plannedLines(lines: ImportSource, deps: ImportDeps) {
  const order = createClaimOrder();
  let line = 0;
  for await (const raw of lines) {
    line += 1;
    if (typeof raw !== "string") {
      yield { planned: { line, error: raw.error } as PlannedLine, turn: undefined };
      continue;
    }
    // A UTF-8 byte order mark from Windows editors is not part of the JSON.
    const text = line === 1 ? raw.replace(/^\uFEFF/, "") : raw;
    if (text.trim() === "") continue;
    const planned = planLine(text, line, deps);
    yield { planned, turn: "account" in planned ? order.enter(planned.account) : undefined };
  }
}

/**
 * Imports a stream of JSON lines with bounded parallelism. Line numbers count every
 * physical line, blank ones included, so they match the operator's editor.
 */
export async function importAccounts(lines: ImportSource, options: ImportOptions): Promise<ImportSummary> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
  const progress: ImportProgress = { processed: 0, imported: 0, unchanged: 0, failed: 0 };
  const errors: ImportSummary["errors"] = [];
  // An async generator queues concurrent next() calls, so workers can share it safely.
  const source = plannedLines(lines, options);
  const worker = async () => {
    for (;;) {
      const next = await source.next();
      if (next.done) return;
      const { planned, turn } = next.value;
      const result = await storeLine(planned, options, turn?.earlier).finally(() => turn?.leave());
      progress.processed += 1;
      if ("sub" in result) {
        if (result.unchanged) progress.unchanged += 1;
        else progress.imported += 1;
      } else {
        progress.failed += 1;
        errors.push({ line: result.line, message: result.error });
      }
      options.onProgress?.({ ...progress }, result);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  errors.sort((a, b) => a.line - b.line);
  return { imported: progress.imported, unchanged: progress.unchanged, failed: progress.failed, errors };
}
