import { type Account, accountView } from "../accounts/account";
import { normalizeEmail, normalizePhone } from "../accounts/contacts";
import { instanceIdOf } from "../accounts/instance-id";
import { SUB_PATTERN } from "../accounts/new-account";
import type { AccountSearch } from "../accounts/ports";
import { foldEmail, foldName, foldPhone } from "./fold";
import { searchProblems } from "./problems";
import { type Condition, evaluate, parseRql, RqlError, type RqlValue } from "./rql";

/**
 * User search (interface §4.7) without scanning: every query must be answerable from lookups
 * by key. An equality on an indexed attribute is a lookup: `sub` the account key,
 * `email` and `phone_number` the uniqueness claims, names the name index. Other
 * attributes (`locked`, names left out of search.indexedAttributes) may only narrow a
 * conjunction that has a lookup; alone, or as a branch of `or`, they give 400
 * not_indexed. The accounts found are then read and the whole query checked on them.
 */

export const SEARCHABLE_ATTRIBUTES = [
  "sub",
  "email",
  "phone_number",
  "family_name",
  "given_name",
  "middle_name",
  "locked",
] as const;
type Searchable = (typeof SEARCHABLE_ATTRIBUTES)[number];

/** The most accounts a lookup may yield, and a search may answer. */
export const MAX_RESULTS = 1000;

const SUB = new RegExp(SUB_PATTERN);
/** As the attribute calls accept names (lib/http/schemas/common.ts personName). */
const MAX_NAME_LENGTH = 256;

const POS = "query";

export interface SearchHit {
  instanceId: string;
  attrs: Omit<ReturnType<typeof accountView>, "meta">;
}

type Candidates = { subs: Set<string> } | { tooMany: string } | { unindexed: string[] };

function fieldOf(account: Account, name: string): unknown {
  switch (name as Searchable) {
    case "email":
      return account.email?.value;
    case "phone_number":
      return account.phone_number?.value;
    case "sub":
    case "family_name":
    case "given_name":
    case "middle_name":
    case "locked":
      return account[name as keyof Account];
  }
}

function foldOf(name: string): (value: string) => string {
  if (name === "email") return foldEmail;
  if (name === "phone_number") return foldPhone;
  if (name === "sub") return (value) => value;
  return foldName;
}

function checkAttributes(condition: Condition): void {
  if (condition.op !== "eq") {
    for (const arg of condition.args) checkAttributes(arg);
    return;
  }
  if (!(SEARCHABLE_ATTRIBUTES as readonly string[]).includes(condition.name)) {
    throw searchProblems.unknownAttribute(POS, condition.name, SEARCHABLE_ATTRIBUTES);
  }
}

/** A lookup by key answers at most one account; evaluate those first. */
function rank(condition: Condition, indexed: readonly string[]): number {
  if (condition.op !== "eq") return 2;
  if (!indexed.includes(condition.name)) return 3;
  return ["sub", "email", "phone_number"].includes(condition.name) ? 0 : 1;
}

function text(value: RqlValue): string | undefined {
  return value.type === "string" || value.type === "auto" ? value.value : undefined;
}

export function createUserSearch(store: AccountSearch, indexed: readonly string[]) {
  async function lookup(name: string, value: RqlValue): Promise<Candidates> {
    if (!indexed.includes(name)) return { unindexed: [name] };
    const wanted = text(value);
    // Every indexed attribute holds text: a number or boolean matches nothing.
    if (wanted === undefined) return { subs: new Set() };
    // A value no account can hold is answered without a lookup (and never makes a key
    // longer than DynamoDB allows).
    if (name === "sub") return { subs: new Set(SUB.test(wanted) ? [wanted] : []) };
    if (name === "email" || name === "phone_number") {
      const normal = name === "email" ? normalizeEmail(wanted) : normalizePhone(wanted);
      const owner = normal === undefined ? undefined : await store.ownerOfContact(name, normal);
      return { subs: new Set(owner ? [owner] : []) };
    }
    if (wanted.length > MAX_NAME_LENGTH) return { subs: new Set() };
    const found = await store.subsWithName(name, foldName(wanted), MAX_RESULTS);
    return found.complete ? { subs: new Set(found.subs) } : { tooMany: name };
  }

  async function candidates(condition: Condition): Promise<Candidates> {
    switch (condition.op) {
      case "eq":
        return lookup(condition.name, condition.value);
      case "and": {
        let best: Set<string> | undefined;
        let tooMany: string | undefined;
        const unindexed: string[] = [];
        for (const arg of [...condition.args].sort((a, b) => rank(a, indexed) - rank(b, indexed))) {
          // Once at most one account is left, the other conditions only filter it.
          if (best && best.size <= 1) break;
          const found = await candidates(arg);
          if ("subs" in found) best = best ? new Set([...best].filter((s) => found.subs.has(s))) : found.subs;
          else if ("tooMany" in found) tooMany ??= found.tooMany;
          else unindexed.push(...found.unindexed);
        }
        if (best) return { subs: best };
        return tooMany ? { tooMany } : { unindexed };
      }
      case "or": {
        const found = await Promise.all(condition.args.map(candidates));
        const unindexed = found.flatMap((f) => ("unindexed" in f ? f.unindexed : []));
        if (unindexed.length > 0) return { unindexed };
        const tooMany = found.find((f) => "tooMany" in f);
        if (tooMany) return tooMany;
        const union = new Set(found.flatMap((f) => ("subs" in f ? [...f.subs] : [])));
        return union.size > MAX_RESULTS ? { tooMany: "or(...)" } : { subs: union };
      }
    }
  }

  return async function searchUsers(query: string): Promise<SearchHit[]> {
    let parsed: ReturnType<typeof parseRql>;
    try {
      parsed = parseRql(query);
    } catch (error) {
      if (error instanceof RqlError) throw searchProblems.malformed(POS, error);
      throw error;
    }
    const filter = parsed.filter;
    if (!filter) throw searchProblems.empty(POS);
    checkAttributes(filter);
    const found = await candidates(filter);
    if ("unindexed" in found) throw searchProblems.notIndexed(POS, found.unindexed, indexed);
    if ("tooMany" in found) throw searchProblems.tooMany(POS, found.tooMany, MAX_RESULTS);
    const accounts = found.subs.size > 0 ? await store.accounts([...found.subs]) : [];
    const matching = accounts
      .filter((account) => evaluate(filter, (name) => fieldOf(account, name), foldOf))
      .sort((a, b) => (a.sub < b.sub ? -1 : a.sub > b.sub ? 1 : 0));
    const offset = parsed.offset ?? 0;
    return matching.slice(offset, parsed.limit === undefined ? undefined : offset + parsed.limit).map((account) => {
      const { meta: _meta, ...attrs } = accountView(account);
      return { instanceId: instanceIdOf(account.sub), attrs };
    });
  };
}
