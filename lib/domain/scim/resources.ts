import { equalityLookup, matches, parseFilter, type ScimFilter, ScimFilterError } from "./filter";
import { applyPatch, type PatchOperation, ScimPatchError } from "./patch";
import { type ScimRecord, ScimRecordRefusedError, type ScimRecords, type ScimResourceType } from "./ports";
import { scimProblems } from "./problems";

/** What every SCIM resource type shares (RFC 7643 3, RFC 7644 3.4, 3.5.2, 3.14): kept attributes, views, lists. */

export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

/** Page sizes (RFC 7644 3.4.2.4): the default, and the most one page holds (ServiceProviderConfig's maxResults). */
export const DEFAULT_COUNT = 100;
export const MAX_COUNT = 200;
/** A list that is not an equality lookup reads the organization's records; past this many it is refused (tooMany). */
export const SCAN_LIMIT = 10_000;

/** Attributes the service assigns (RFC 7643 3.1): never kept from a provider. */
const ASSIGNED = ["id", "meta", "schemas"];
/** Nesting any resource needs; storage refuses deeper values. */
const MAX_DEPTH = 8;
/** RFC 7643 2.1 attribute names (and `$ref`), or a schema URN naming an extension. */
const ATTRIBUTE_NAME = /^(?:urn:[A-Za-z0-9:._-]{1,250}|\$?[A-Za-z][A-Za-z0-9_-]{0,127})$/;
/** Numbers storage keeps exactly (38 digits, magnitudes 1e-130 to 1e126). */
const storableNumber = (n: number) => Number.isFinite(n) && (n === 0 || (Math.abs(n) < 1e125 && Math.abs(n) > 1e-125));
const NAME_MAX = 256;

/** Who calls: the organization the SCIM token stands for, and where the call came from (for the security events). */
export interface ScimCaller {
  orgId: string;
  ip?: string;
  ua?: string;
}

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
  attributes?: string;
  excludedAttributes?: string;
}

export type Projection = Pick<ListQuery, "attributes" | "excludedAttributes">;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Attribute names are case-insensitive (RFC 7643 2.1): the value of `name` however it is spelt. */
export function attribute(resource: Record<string, unknown>, name: string): unknown {
  const wanted = name.toLowerCase();
  const key = Object.keys(resource).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : resource[key];
}

function storable(value: unknown, depth: number): boolean {
  if (typeof value === "number") return storableNumber(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((v) => storable(v, depth + 1));
  return Object.entries(value).every(([k, v]) => ATTRIBUTE_NAME.test(k) && storable(v, depth + 1));
}

/**
 * What a provider sent, less what is never kept (the assigned attributes and `dropped`),
 * checked: its unique name a string of 1 to 256 characters, storable, and at most `maxBytes`.
 */
export function keptAttributes(
  body: Record<string, unknown>,
  rules: { nameAttribute: string; dropped: readonly string[]; maxBytes: number },
): Record<string, unknown> {
  const never = [...ASSIGNED, ...rules.dropped.map((n) => n.toLowerCase())];
  const kept = Object.fromEntries(Object.entries(body).filter(([key]) => !never.includes(key.toLowerCase())));
  const name = attribute(kept, rules.nameAttribute);
  if (typeof name !== "string" || name.trim() === "" || name.length > NAME_MAX)
    throw scimProblems.invalidValue(`${rules.nameAttribute} must be a string of 1 to ${NAME_MAX} characters`);
  if (!storable(kept, 0))
    throw scimProblems.invalidValue(
      `attribute names must follow RFC 7643 2.1, values nest at most ${MAX_DEPTH} deep and hold ordinary numbers`,
    );
  if (Buffer.byteLength(JSON.stringify(kept)) > rules.maxBytes)
    throw scimProblems.invalidValue(`the attributes exceed ${rules.maxBytes} bytes`);
  return kept;
}

/** The unique name as stored: trimmed. */
export const nameOf = (attributes: Record<string, unknown>, nameAttribute: string) =>
  String(attribute(attributes, nameAttribute)).trim();

const etagOf = (version: number) => `W/"${version}"`;

/** RFC 7643 3.1 `meta`, `location` under the SCIM base URL. */
export function metaOf(record: ScimRecord, type: ScimResourceType, baseUrl: string) {
  return {
    resourceType: type,
    created: new Date(record.created).toISOString(),
    lastModified: new Date(record.lastModified).toISOString(),
    location: `${baseUrl}/${type}s/${encodeURIComponent(record.id)}`,
    version: etagOf(record.version),
  };
}

/** A resource as answered, with the headers that name its version and place (RFC 7644 3.14, 3.3). */
export interface ScimAnswer {
  resource: Record<string, unknown>;
  etag: string;
  location: string;
}

export function answerOf(
  record: ScimRecord,
  type: ScimResourceType,
  baseUrl: string,
  resource: Record<string, unknown>,
): ScimAnswer {
  const meta = metaOf(record, type, baseUrl);
  return { resource, etag: meta.version, location: meta.location };
}

/** RFC 7644 3.14: If-Match names the version a change applies to; `*` any. */
export function checkIfMatch(record: ScimRecord, ifMatch: string | undefined): void {
  if (!namesVersion(ifMatch)) return;
  const listed = (ifMatch as string).split(",").map((tag) => tag.trim());
  if (!listed.includes(etagOf(record.version))) throw scimProblems.preconditionFailed();
}

/** Whether If-Match holds the change to one version (not absent, not `*`). */
export const namesVersion = (ifMatch: string | undefined) => ifMatch !== undefined && ifMatch.trim() !== "*";

/**
 * RFC 7644 3.4.2.5 `attributes` / `excludedAttributes`: top-level names (a sub-attribute
 * keeps its parent); `id`, `schemas` and `meta` are always returned.
 */
export function projected(view: Record<string, unknown>, wanted: Projection): Record<string, unknown> {
  const names = (list?: string) =>
    list
      ?.split(",")
      .map((n) => n.trim().split(".")[0].toLowerCase())
      .filter(Boolean);
  const keep = names(wanted.attributes);
  const drop = names(wanted.excludedAttributes) ?? [];
  return Object.fromEntries(
    Object.entries(view).filter(([key]) => {
      const lower = key.toLowerCase();
      if (ASSIGNED.includes(lower)) return true;
      if (keep && keep.length > 0) return keep.includes(lower);
      return !drop.includes(lower);
    }),
  );
}

function parsed(filter: string): ScimFilter {
  try {
    return parseFilter(filter);
  } catch (error) {
    if (error instanceof ScimFilterError) throw scimProblems.invalidFilter(error.message);
    throw error;
  }
}

/** The record's attributes with the operations applied; a refused operation is its RFC 7644 3.12 error. */
export function patched(record: ScimRecord, operations: readonly PatchOperation[]): Record<string, unknown> {
  try {
    return applyPatch({ id: record.id, ...record.attributes }, operations);
  } catch (error) {
    if (!(error instanceof ScimPatchError)) throw error;
    const problem = {
      invalidPath: scimProblems.invalidPath,
      noTarget: scimProblems.noTarget,
      invalidValue: scimProblems.invalidValue,
      mutability: scimProblems.mutability,
      invalidSyntax: scimProblems.invalidSyntax,
    }[error.scimType];
    throw problem(error.message);
  }
}

/** Every record of the organization matching `filter`, page by page (tooMany past SCAN_LIMIT). */
async function scan(
  records: Pick<ScimRecords, "page">,
  orgId: string,
  filter: ScimFilter | undefined,
  view: (record: ScimRecord) => Record<string, unknown>,
): Promise<ScimRecord[]> {
  const matched: ScimRecord[] = [];
  let read = 0;
  let after: string | undefined;
  do {
    const page = await records.page(orgId, 1000, after);
    read += page.records.length;
    if (read > SCAN_LIMIT) throw scimProblems.tooMany(SCAN_LIMIT);
    for (const record of page.records) if (!filter || matches(filter, view(record))) matched.push(record);
    after = page.next;
  } while (after);
  return matched;
}

/**
 * A list (RFC 7644 3.4.2): an equality on id or the unique name is one or two reads; any
 * other filter, or none, reads the organization's records. Pages are 1-based by startIndex.
 */
export async function listed(
  records: Pick<ScimRecords, "get" | "byName" | "page">,
  orgId: string,
  query: ListQuery,
  view: (record: ScimRecord) => Record<string, unknown>,
  nameAttribute: string,
) {
  const filter = query.filter === undefined ? undefined : parsed(query.filter);
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(MAX_COUNT, Math.max(0, query.count ?? DEFAULT_COUNT));
  const lookup = filter && equalityLookup(filter);
  let matched: ScimRecord[];
  if (filter && (lookup?.attribute === "id" || lookup?.attribute === nameAttribute)) {
    const one =
      lookup.attribute === "id" ? await records.get(orgId, lookup.value) : await records.byName(orgId, lookup.value);
    matched = one && matches(filter, view(one)) ? [one] : [];
  } else {
    matched = await scan(records, orgId, filter, view);
  }
  const page = matched.slice(startIndex - 1, startIndex - 1 + count);
  return {
    schemas: [LIST_SCHEMA],
    totalResults: matched.length,
    startIndex,
    itemsPerPage: page.length,
    Resources: page.map((record) => projected(view(record), query)),
  };
}

/** Concurrent changes of one record retry this often before 409. */
export const ATTEMPTS = 3;

/** How one resource type reads, checks and writes a change (users keep their account in line). */
export interface ChangeRules {
  read: (id: string) => Promise<ScimRecord>;
  /** The attributes to keep, checked for the type. */
  kept: (body: Record<string, unknown>) => Record<string, unknown>;
  nameAttribute: string;
  /** Before the record's write: what else must change or hold (an account's names, members that exist). */
  before?: (current: ScimRecord, updated: ScimRecord) => Promise<void>;
  /** The write was refused: bring what `before` changed back in line with what is stored now. */
  refused?: (updated: ScimRecord) => Promise<void>;
  write: (current: ScimRecord, updated: ScimRecord) => Promise<void>;
  taken: (name: string) => Error;
}

/**
 * A replacement or a patch: the record is written on condition that it is still the
 * version read, so two changes never lose one; a change that lost reads again and
 * applies on top (three tries), unless If-Match held it to the version read (412).
 */
export async function changeRecord(
  rules: ChangeRules,
  id: string,
  ifMatch: string | undefined,
  next: (current: ScimRecord) => Record<string, unknown>,
): Promise<ScimRecord> {
  for (let attempt = 1; ; attempt++) {
    const current = await rules.read(id);
    checkIfMatch(current, ifMatch);
    const attributes = rules.kept(next(current));
    const updated: ScimRecord = {
      ...current,
      name: nameOf(attributes, rules.nameAttribute),
      attributes,
      version: current.version + 1,
      lastModified: Math.max(Date.now(), current.lastModified + 1),
    };
    await rules.before?.(current, updated);
    try {
      await rules.write(current, updated);
      return updated;
    } catch (error) {
      if (!(error instanceof ScimRecordRefusedError)) throw error;
      await rules.refused?.(updated);
      if (error.reason === "name") throw rules.taken(updated.name);
      if (namesVersion(ifMatch)) throw scimProblems.preconditionFailed();
      if (attempt >= ATTEMPTS) throw scimProblems.changedConcurrently();
    }
  }
}

/** A deletion conditioned on the version read; `remove` false: the record moved on, read again. */
export async function removeRecord(
  read: (id: string) => Promise<ScimRecord>,
  id: string,
  ifMatch: string | undefined,
  remove: (current: ScimRecord) => Promise<boolean>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const current = await read(id);
    checkIfMatch(current, ifMatch);
    if (await remove(current)) return;
    if (namesVersion(ifMatch)) throw scimProblems.preconditionFailed();
    if (attempt >= ATTEMPTS) throw scimProblems.changedConcurrently();
  }
}
