import { randomUUID } from "node:crypto";
import { Ajv, type ErrorObject } from "ajv";
import { hashPassword, type PasswordHash } from "../credentials/password-hash";
import type { Account } from "./account";
import { type NewAccountInput, prepareNewAccount } from "./new-account";
import { AccountConflictError, type AccountRepository, type UniqueField } from "./ports";

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

const lineSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    sub: { type: "string" },
    family_name: { type: "string" },
    given_name: { type: "string" },
    middle_name: { type: "string" },
    locked: { type: "boolean" },
    phone_number: contactSchema,
    email: contactSchema,
    password: { type: "string", minLength: 1 },
  },
} as const;

const validateLine = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(lineSchema);

type ContactField = string | { value: string; verified?: boolean };

interface ImportLine {
  sub?: string;
  family_name?: string;
  given_name?: string;
  middle_name?: string;
  locked?: boolean;
  phone_number?: ContactField;
  email?: ContactField;
  password?: string;
}

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

export type ParsedLine = { input: NewAccountInput; password?: string } | { error: string };

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
  return line.password === undefined ? { input } : { input, password: line.password };
}

export type ImportLineResult = { line: number; sub: string } | { line: number; error: string };

export interface ImportDeps {
  accounts: Pick<AccountRepository, "create">;
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

type PlannedLine = { line: number; error: string } | { line: number; account: Account; password?: string };

/** Everything before storage: parse, validate, normalize (synchronous, so order is kept). */
function planLine(text: string, line: number, deps: ImportDeps): PlannedLine {
  const parsed = parseImportLine(text);
  if ("error" in parsed) return { line, error: parsed.error };
  const now = deps.now?.() ?? Math.floor(Date.now() / 1000);
  const prepared = prepareNewAccount(parsed.input, now, deps.newSub ?? randomUUID);
  if ("problems" in prepared) return { line, error: prepared.problems.map((p) => p.desc).join("; ") };
  return { line, account: prepared.account, password: parsed.password };
}

async function storeLine(
  planned: PlannedLine,
  deps: ImportDeps,
  earlierClaims: Promise<unknown> = Promise.resolve(),
): Promise<ImportLineResult> {
  if ("error" in planned) return planned;
  const { line, account, password } = planned;
  try {
    const hash = password === undefined ? undefined : await (deps.hash ?? hashPassword)(password);
    await earlierClaims;
    // The store retries transaction conflicts itself (lib/store/transact.ts).
    await deps.accounts.create(account, hash);
    return { line, sub: account.sub };
  } catch (error) {
    if (error instanceof AccountConflictError) return { line, error: conflictMessage(error.fields) };
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

export interface ImportProgress {
  /** Lines finished so far (blank lines are not counted). */
  processed: number;
  imported: number;
  failed: number;
}

export interface ImportSummary {
  imported: number;
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
async function* plannedLines(lines: AsyncIterable<string> | Iterable<string>, deps: ImportDeps) {
  const order = createClaimOrder();
  let line = 0;
  for await (const raw of lines) {
    line += 1;
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
export async function importAccounts(
  lines: AsyncIterable<string> | Iterable<string>,
  options: ImportOptions,
): Promise<ImportSummary> {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
  const progress: ImportProgress = { processed: 0, imported: 0, failed: 0 };
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
      if ("sub" in result) progress.imported += 1;
      else {
        progress.failed += 1;
        errors.push({ line: result.line, message: result.error });
      }
      options.onProgress?.({ ...progress }, result);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  errors.sort((a, b) => a.line - b.line);
  return { imported: progress.imported, failed: progress.failed, errors };
}
