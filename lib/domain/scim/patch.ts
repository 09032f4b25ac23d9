import { isDeepStrictEqual } from "node:util";
import { findKey, isCoreSchema, matches, parseAttrPath, parseFilter, type ScimFilter, ScimFilterError } from "./filter";

/**
 * SCIM 2.0 PATCH (RFC 7644 3.5.2) as Okta and Microsoft Entra ID send it: applied to a copy,
 * all operations or none. Attribute names ignore case; an existing key keeps its spelling.
 *
 *   path := [ URI ":" ] NAME [ "." NAME ]  |  [ URI ":" ] NAME "[" filter "]" [ "." NAME ]
 */

export type ScimPatchErrorType = "invalidPath" | "noTarget" | "invalidValue" | "mutability" | "invalidSyntax";

export class ScimPatchError extends Error {
  constructor(
    readonly scimType: ScimPatchErrorType,
    message: string,
  ) {
    super(message);
    this.name = "ScimPatchError";
  }
}

export interface PatchOperation {
  op: string;
  path?: string;
  value?: unknown;
}

export interface PatchOptions {
  /** Lower-case top-level names (`groups`, or `name.formatted` for one sub-attribute) a patch may not touch. */
  readOnly?: ReadonlySet<string>;
  /** Passed to the bracket filters' `matches`, names whole (`members.value`). */
  caseExact?: ReadonlySet<string>;
}

type Op = "add" | "replace" | "remove";

interface PatchPath {
  text: string;
  uri?: string;
  attribute: string;
  filter?: ScimFilter;
  subAttribute?: string;
}

type Entity = Record<string, unknown>;

/** The service assigns these (RFC 7643 3.1). */
const ASSIGNED = new Set(["id", "meta", "schemas"]);
const ENTERPRISE_USER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

const isRecord = (value: unknown): value is Entity =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const own = (record: Entity, key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);

/** Defined rather than assigned, so a key such as `__proto__` stays data. */
function setKey(record: Entity, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

function removeKey(record: Entity, key: string | undefined): void {
  if (key !== undefined) Reflect.deleteProperty(record, key);
}

export function applyPatch(
  resource: Record<string, unknown>,
  operations: readonly PatchOperation[],
  options: PatchOptions = {},
): Record<string, unknown> {
  if (!Array.isArray(operations)) throw new ScimPatchError("invalidSyntax", "Operations must be a list");
  const result = structuredClone(resource);
  for (const operation of operations) applyOperation(result, operation, options);
  return result;
}

function opOf(operation: unknown): Op {
  const op = isRecord(operation) && typeof operation.op === "string" ? operation.op.toLowerCase() : undefined;
  if (op === "add" || op === "replace" || op === "remove") return op;
  const given = isRecord(operation) ? JSON.stringify(operation.op) : "nothing";
  throw new ScimPatchError("invalidSyntax", `op must be add, replace or remove, not ${given}`);
}

function applyOperation(resource: Entity, operation: PatchOperation, options: PatchOptions): void {
  const op = opOf(operation);
  const value = operation.value === undefined ? undefined : structuredClone(operation.value);
  if (operation.path === undefined || operation.path === null) {
    if (op === "remove") throw new ScimPatchError("noTarget", "remove needs a path");
    applyEntries(resource, op, value, "", options);
    return;
  }
  if (typeof operation.path !== "string") throw new ScimPatchError("invalidPath", "path must be a string");
  if (op !== "remove" && value === undefined) throw new ScimPatchError("invalidValue", `${op} needs a value`);
  const schema = schemaKey(resource, operation.path);
  if (schema === undefined) applyAt(resource, parsePath(operation.path), op, value, options);
  else if (op !== "remove") applyEntries(resource, op, value, `${schema}:`, options);
  else removeSchema(resource, schema);
}

function removeSchema(resource: Entity, schema: string): void {
  if (isCoreSchema(schema)) throw new ScimPatchError("mutability", "the core schema cannot be removed");
  removeKey(resource, findKey(resource, schema));
}

/**
 * Whether `text` names a whole schema (`urn:…:enterprise:2.0:User`) rather than an attribute
 * in one: both are URNs, so only the schemas the resource has or we know tell them apart.
 */
function schemaKey(resource: Entity, text: string): string | undefined {
  const lower = text.toLowerCase();
  const schemas = own(resource, "schemas");
  const listed = Array.isArray(schemas) && schemas.some((s) => typeof s === "string" && s.toLowerCase() === lower);
  const known = isCoreSchema(text) || lower === ENTERPRISE_USER.toLowerCase() || listed;
  return known || (lower.startsWith("urn:") && isRecord(own(resource, findKey(resource, text) ?? "")))
    ? text
    : undefined;
}

/** No path: each key of the value is a path of its own (Entra sends `name.givenName` and URN keys). */
function applyEntries(resource: Entity, op: Op, value: unknown, prefix: string, options: PatchOptions): void {
  if (!isRecord(value)) throw new ScimPatchError("invalidValue", `${op} without a path needs an object value`);
  for (const [key, item] of Object.entries(value)) {
    if (prefix === "" && isIdEcho(resource, key, item)) continue;
    const schema = prefix === "" ? schemaKey(resource, key) : undefined;
    if (schema !== undefined) applyEntries(resource, op, item, `${schema}:`, options);
    else applyAt(resource, parsePath(`${prefix}${key}`), op, item, options);
  }
}

/** Okta repeats the group's own id in a replace value. */
function isIdEcho(resource: Entity, key: string, item: unknown): boolean {
  return key.toLowerCase() === "id" && item !== undefined && item === own(resource, findKey(resource, "id") ?? "");
}

function parsePath(text: string): PatchPath {
  try {
    const open = text.indexOf("[");
    if (open === -1) return { text, ...parseAttrPath(text) };
    const close = closingBracket(text, open);
    const rest = text.slice(close + 1);
    const path = parseAttrPath(text.slice(0, open));
    if (path.subAttribute !== undefined || (rest !== "" && !rest.startsWith(".")))
      throw new ScimFilterError("a filter follows the attribute and at most a sub-attribute follows it");
    const filter = parseFilter(text.slice(open + 1, close));
    return { text, ...path, filter, ...(rest !== "" && { subAttribute: subName(rest.slice(1)) }) };
  } catch (error) {
    if (error instanceof ScimFilterError) throw new ScimPatchError("invalidPath", `invalid path: ${error.message}`);
    throw error;
  }
}

function subName(text: string): string {
  const path = parseAttrPath(text);
  if (path.uri !== undefined || path.subAttribute !== undefined)
    throw new ScimFilterError(`invalid sub-attribute ${JSON.stringify(text)}`);
  return path.attribute;
}

/** The first `]` outside a string literal. */
function closingBracket(text: string, open: number): number {
  let inString = false;
  for (let i = open + 1; i < text.length; i++) {
    if (inString && text[i] === "\\") i++;
    else if (text[i] === '"') inString = !inString;
    else if (!inString && text[i] === "]") return i;
  }
  throw new ScimFilterError("unbalanced [");
}

function checkMutable(path: PatchPath, options: PatchOptions): void {
  if (path.uri !== undefined) return;
  const name = path.attribute.toLowerCase();
  const whole = path.subAttribute === undefined ? name : `${name}.${path.subAttribute.toLowerCase()}`;
  if (ASSIGNED.has(name) || options.readOnly?.has(name) || options.readOnly?.has(whole))
    throw new ScimPatchError("mutability", `${path.attribute} cannot be changed`);
}

function applyAt(resource: Entity, path: PatchPath, op: Op, value: unknown, options: PatchOptions): void {
  checkMutable(path, options);
  const container = containerOf(resource, path, op);
  if (container === undefined) return;
  const converted = entraManager(path, entraBoolean(path, value));
  if (path.filter !== undefined) applyFiltered(container, path, path.filter, op, converted, options);
  else if (path.subAttribute !== undefined) applySub(container, path, path.subAttribute, op, converted);
  else applyAttribute(container, path.attribute, op, converted);
}

/** Entra sends `"active": "False"`. */
function entraBoolean(path: PatchPath, value: unknown): unknown {
  const plain = path.uri === undefined && path.filter === undefined && path.subAttribute === undefined;
  if (!plain || path.attribute.toLowerCase() !== "active" || typeof value !== "string") return value;
  const lower = value.toLowerCase();
  return lower === "true" || lower === "false" ? lower === "true" : value;
}

/** Entra sends the manager as a bare id; RFC 7643 4.3 makes it complex, `{ "value": id }`. */
function entraManager(path: PatchPath, value: unknown): unknown {
  const manager =
    path.uri?.toLowerCase() === ENTERPRISE_USER.toLowerCase() &&
    path.attribute.toLowerCase() === "manager" &&
    path.filter === undefined &&
    path.subAttribute === undefined;
  return manager && typeof value === "string" ? { value } : value;
}

/** The object a path's attribute lives in: the resource, or an extension's object, made when adding. */
function containerOf(resource: Entity, path: PatchPath, op: Op): Entity | undefined {
  if (path.uri === undefined) return resource;
  const key = findKey(resource, path.uri);
  const existing = key === undefined ? undefined : own(resource, key);
  if (isRecord(existing)) return existing;
  if (existing !== undefined) throw new ScimPatchError("invalidPath", `${path.uri} is not an object`);
  if (op === "remove") return undefined;
  const created: Entity = {};
  setKey(resource, path.uri, created);
  const schemas = own(resource, "schemas");
  if (Array.isArray(schemas) && schemaKey({ schemas }, path.uri) === undefined) schemas.push(path.uri);
  return created;
}

function applyAttribute(container: Entity, name: string, op: Op, value: unknown): void {
  const key = findKey(container, name) ?? name;
  const current = own(container, key);
  if (op === "remove") removeAttribute(container, key, current, value);
  else setKey(container, key, op === "add" ? added(current, value) : replaced(current, value));
}

function added(current: unknown, value: unknown): unknown {
  if (Array.isArray(current)) return appendUnique(current, Array.isArray(value) ? value : [value]);
  if (current === undefined && Array.isArray(value)) return appendUnique([], value);
  if (isRecord(current) && isRecord(value)) return merged(current, value);
  return value;
}

/** RFC 7644 3.5.2.3: a complex attribute keeps the sub-attributes the value leaves out; a list is replaced whole. */
function replaced(current: unknown, value: unknown): unknown {
  if (Array.isArray(current) || Array.isArray(value)) {
    const list = Array.isArray(value) ? value : [value];
    settlePrimary(list, list);
    return list;
  }
  if (isRecord(current) && isRecord(value)) return merged(current, value);
  return value;
}

function merged(current: Entity, value: Entity): Entity {
  for (const [key, item] of Object.entries(value)) setKey(current, findKey(current, key) ?? key, item);
  return current;
}

/** Elements of a list are the same when their `value`s are, else when they are equal throughout. */
function sameElement(a: unknown, b: unknown): boolean {
  if (isRecord(a) && isRecord(b) && findKey(a, "value") !== undefined && findKey(b, "value") !== undefined)
    return own(a, findKey(a, "value") ?? "") === own(b, findKey(b, "value") ?? "");
  return isDeepStrictEqual(a, b);
}

function appendUnique(current: readonly unknown[], items: readonly unknown[]): unknown[] {
  const list = [...current];
  const appended: unknown[] = [];
  for (const item of items) {
    if (list.some((element) => sameElement(element, item))) continue;
    list.push(item);
    appended.push(item);
  }
  settlePrimary(list, appended);
  return list;
}

const isPrimary = (element: unknown) => isRecord(element) && own(element, findKey(element, "primary") ?? "") === true;

/** RFC 7643 2.4: one element at most is primary, the one just written. */
function settlePrimary(list: readonly unknown[], written: readonly unknown[]): void {
  const chosen = written.findLast(isPrimary);
  if (chosen === undefined) return;
  for (const element of list) {
    if (element !== chosen && isRecord(element) && isPrimary(element))
      setKey(element, findKey(element, "primary") ?? "primary", false);
  }
}

/** Entra removes members by value: `{"op":"Remove","path":"members","value":[{"value":"id"}]}`. */
function removeAttribute(container: Entity, key: string, current: unknown, value: unknown): void {
  if (!Array.isArray(current) || value === undefined) {
    removeKey(container, findKey(container, key));
    return;
  }
  const doomed = Array.isArray(value) ? value : [value];
  keepOrRemove(
    container,
    key,
    current.filter((element) => !doomed.some((item) => sameElement(element, item))),
  );
}

/** RFC 7644 3.5.2.2: a list left empty is unassigned. */
function keepOrRemove(container: Entity, key: string, list: unknown[]): void {
  if (list.length > 0) setKey(container, key, list);
  else removeKey(container, findKey(container, key));
}

function applySub(container: Entity, path: PatchPath, sub: string, op: Op, value: unknown): void {
  const key = findKey(container, path.attribute) ?? path.attribute;
  const parent = own(container, key);
  if (Array.isArray(parent)) {
    applyToElements(container, key, parent, parent.filter(isRecord), path, op, value);
    return;
  }
  if (parent === undefined && op === "remove") return;
  if (parent !== undefined && !isRecord(parent))
    throw new ScimPatchError("invalidPath", `${path.attribute} has no sub-attributes`);
  const target = isRecord(parent) ? parent : {};
  applyAttribute(target, sub, op, value);
  setKey(container, key, target);
}

function applyFiltered(
  container: Entity,
  path: PatchPath,
  filter: ScimFilter,
  op: Op,
  value: unknown,
  options: PatchOptions,
): void {
  const key = findKey(container, path.attribute) ?? path.attribute;
  const current = own(container, key) ?? [];
  if (!Array.isArray(current)) throw new ScimPatchError("invalidPath", `${path.attribute} is not multi-valued`);
  const caseExact = relativeNames(options.caseExact, path.attribute);
  const selected = current.filter(isRecord).filter((element) => matches(filter, element, { caseExact }));
  applyToElements(container, key, current, selected, path, op, value);
}

/** `members.value` in caseExact is `value` inside `members[…]`. */
function relativeNames(names: ReadonlySet<string> | undefined, attribute: string): ReadonlySet<string> {
  const prefix = `${attribute.toLowerCase()}.`;
  return new Set([...(names ?? [])].filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length)));
}

/** A filter that matches nothing is idempotent for remove; add makes the element the filter describes. */
function applyToElements(
  container: Entity,
  key: string,
  list: readonly unknown[],
  selected: readonly Entity[],
  path: PatchPath,
  op: Op,
  value: unknown,
): void {
  if (op === "remove") removeElements(container, key, list, selected, path.subAttribute);
  else if (selected.length > 0) writeElements(container, key, list, selected, path, op, value);
  else if (op === "add") appendDescribed(container, key, list, path, value);
  else throw new ScimPatchError("noTarget", `${path.text} matches nothing`);
}

function writeElements(
  container: Entity,
  key: string,
  list: readonly unknown[],
  selected: readonly Entity[],
  path: PatchPath,
  op: Op,
  value: unknown,
): void {
  const written = new Map<unknown, Entity>(
    selected.map((element) => [element, writeElement(element, path.subAttribute, op, structuredClone(value))]),
  );
  const next = list.map((element) => written.get(element) ?? element);
  settlePrimary(next, [...written.values()]);
  setKey(container, key, next);
}

function writeElement(element: Entity, sub: string | undefined, op: Op, value: unknown): Entity {
  if (sub !== undefined) {
    applyAttribute(element, sub, op, value);
    return element;
  }
  if (!isRecord(value)) throw new ScimPatchError("invalidValue", "an element of a list is an object");
  return op === "replace" ? value : merged(element, value);
}

function removeElements(
  container: Entity,
  key: string,
  list: readonly unknown[],
  selected: readonly Entity[],
  sub: string | undefined,
): void {
  if (sub === undefined)
    keepOrRemove(
      container,
      key,
      list.filter((element) => !selected.some((s) => s === element)),
    );
  else for (const element of selected) removeKey(element, findKey(element, sub));
}

/** Entra adds `emails[type eq "work"].value` to a user with no work address: the element is made from the filter. */
function appendDescribed(container: Entity, key: string, list: readonly unknown[], path: PatchPath, value: unknown) {
  const element = path.filter === undefined ? undefined : described(path.filter);
  if (element === undefined) throw new ScimPatchError("noTarget", `${path.text} matches nothing`);
  const written = writeElement(element, path.subAttribute, "add", value);
  const next = [...list, written];
  settlePrimary(next, [written]);
  setKey(container, key, next);
}

/** The element `type eq "work" and primary eq true` describes; undefined for any other filter. */
function described(filter: ScimFilter): Entity | undefined {
  if (filter.kind === "and") {
    const left = described(filter.left);
    const right = described(filter.right);
    return left && right && { ...left, ...right };
  }
  if (filter.kind !== "compare" || filter.op !== "eq" || filter.path.uri !== undefined) return undefined;
  if (filter.path.subAttribute !== undefined) return undefined;
  const element: Entity = {};
  setKey(element, filter.path.attribute, filter.value);
  return element;
}
