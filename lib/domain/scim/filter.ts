/**
 * SCIM 2.0 filters (RFC 7644 3.4.2.2): parsed to a tree, printed back in one canonical form,
 * and evaluated against a resource. Any malformed filter is a ScimFilterError (400 invalidFilter).
 *
 *   filter   := or
 *   or       := and { "or" and }
 *   and      := unary { "and" unary }
 *   unary    := "not" "(" filter ")" | "(" filter ")" | term
 *   term     := path "pr" | path OP value | path "[" filter "]"      no brackets within brackets
 *   path     := [ URI ":" ] NAME [ "." NAME ]
 *   value    := JSON string | JSON number | true | false | null
 *
 * Keywords and operators ignore case. Positions in messages count characters from 1.
 */

export class ScimFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScimFilterError";
  }
}

/** `uri` is absent for the core User and Group schemas: their attributes sit at the top level. */
export interface AttrPath {
  uri?: string;
  attribute: string;
  subAttribute?: string;
}

export type CompareOp = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "ge" | "lt" | "le";
export type FilterValue = string | number | boolean | null;

export type ScimFilter =
  | { kind: "compare"; path: AttrPath; op: CompareOp; value: FilterValue }
  | { kind: "present"; path: AttrPath }
  | { kind: "and" | "or"; left: ScimFilter; right: ScimFilter }
  | { kind: "not"; filter: ScimFilter }
  /** The inner filter's paths name sub-attributes of each element of `attribute`. */
  | { kind: "valuePath"; attribute: AttrPath; filter: ScimFilter };

export const SCIM_FILTER_LIMITS = { length: 4096, depth: 16 } as const;

const CORE_SCHEMAS = new Set([
  "urn:ietf:params:scim:schemas:core:2.0:user",
  "urn:ietf:params:scim:schemas:core:2.0:group",
]);
const OPERATORS: ReadonlySet<string> = new Set(["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"]);
/** RFC 7643's ATTRNAME, plus the leading `$` of `$ref`, which the RFC uses but its grammar omits. */
const NAME = /^\$?[A-Za-z][\w-]*$/;
const URI = /^urn:[\w.+-]+(:[\w.+-]+)*$/i;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

export function isCoreSchema(uri: string): boolean {
  return CORE_SCHEMAS.has(uri.toLowerCase());
}

const isCompareOp = (word: string): word is CompareOp => OPERATORS.has(word);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The key of `record` that names `name`: the same spelling first, else the first that differs only in case. */
export function findKey(record: Record<string, unknown>, name: string): string | undefined {
  if (Object.hasOwn(record, name)) return name;
  const wanted = name.toLowerCase();
  return Object.keys(record).find((key) => key.toLowerCase() === wanted);
}

function lookup(record: Record<string, unknown>, name: string): unknown {
  const key = findKey(record, name);
  return key === undefined ? undefined : record[key];
}

const quoted = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** `urn:…:User:name.givenName`: the URI runs to the last colon, as the attribute names hold none. */
export function parseAttrPath(text: string, at = 1): AttrPath {
  const colon = text.lastIndexOf(":");
  const uri = colon === -1 ? undefined : text.slice(0, colon);
  const [attribute, subAttribute, ...more] = text.slice(colon + 1).split(".");
  const valid =
    (uri === undefined || URI.test(uri)) &&
    NAME.test(attribute) &&
    (subAttribute === undefined || NAME.test(subAttribute)) &&
    more.length === 0;
  if (!valid) throw new ScimFilterError(`invalid attribute path ${quoted(text)} at ${at}`);
  const path: AttrPath = { attribute };
  if (uri !== undefined && !isCoreSchema(uri)) path.uri = uri;
  if (subAttribute !== undefined) path.subAttribute = subAttribute;
  return path;
}

interface Token {
  kind: "(" | ")" | "[" | "]" | "string" | "word" | "end";
  text: string;
  at: number;
}

const isSpace = (ch: string) => /\s/.test(ch);
const isPunctuation = (ch: string) => ch === "(" || ch === ")" || ch === "[" || ch === "]";

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  throw new ScimFilterError(`unterminated string at ${start + 1}`);
}

function wordEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && !isSpace(text[i]) && !isPunctuation(text[i]) && text[i] !== '"') i++;
  return i;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (isSpace(ch)) {
      i++;
    } else if (ch === "(" || ch === ")" || ch === "[" || ch === "]") {
      tokens.push({ kind: ch, text: ch, at: i + 1 });
      i++;
    } else {
      const end = ch === '"' ? stringEnd(text, i) : wordEnd(text, i);
      tokens.push({ kind: ch === '"' ? "string" : "word", text: text.slice(i, end), at: i + 1 });
      i = end;
    }
  }
  tokens.push({ kind: "end", text: "", at: text.length + 1 });
  return tokens;
}

function unexpected(token: Token): ScimFilterError {
  return new ScimFilterError(
    token.kind === "end"
      ? `unexpected end of filter at ${token.at}`
      : `unexpected ${quoted(token.text)} at ${token.at}`,
  );
}

function parseString(token: Token): string {
  let value: unknown;
  try {
    value = JSON.parse(token.text);
  } catch {
    throw new ScimFilterError(`invalid string ${quoted(token.text)} at ${token.at}`);
  }
  if (typeof value !== "string") throw new ScimFilterError(`invalid string ${quoted(token.text)} at ${token.at}`);
  return value;
}

function parseValue(token: Token): FilterValue {
  if (token.kind === "string") return parseString(token);
  if (token.kind !== "word") throw new ScimFilterError(`missing value at ${token.at}`);
  const word = token.text.toLowerCase();
  if (word === "true" || word === "false") return word === "true";
  if (word === "null") return null;
  const number = NUMBER.test(token.text) ? Number(token.text) : Number.NaN;
  if (!Number.isFinite(number)) throw new ScimFilterError(`invalid value ${quoted(token.text)} at ${token.at}`);
  return number;
}

class Parser {
  private index = 0;
  private depth = 0;
  private inBrackets = false;

  constructor(private readonly tokens: Token[]) {}

  parse(): ScimFilter {
    const filter = this.or();
    const rest = this.peek();
    if (rest.kind !== "end") throw unexpected(rest);
    return filter;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const token = this.peek();
    this.index++;
    return token;
  }

  private expect(kind: Token["kind"]): void {
    const token = this.next();
    if (token.kind !== kind) throw unexpected(token);
  }

  private isKeyword(word: string): boolean {
    const token = this.peek();
    return token.kind === "word" && token.text.toLowerCase() === word;
  }

  private or(): ScimFilter {
    let left = this.and();
    while (this.isKeyword("or")) {
      this.next();
      left = { kind: "or", left, right: this.and() };
    }
    return left;
  }

  private and(): ScimFilter {
    let left = this.unary();
    while (this.isKeyword("and")) {
      this.next();
      left = { kind: "and", left, right: this.unary() };
    }
    return left;
  }

  private unary(): ScimFilter {
    if (this.isKeyword("not") && this.peek(1).kind === "(") {
      this.next();
      return { kind: "not", filter: this.group("(", ")") };
    }
    if (this.peek().kind === "(") return this.group("(", ")");
    return this.term();
  }

  /** The one place nesting grows, so the depth limit also bounds the recursion. */
  private group(open: "(" | "[", close: ")" | "]"): ScimFilter {
    const token = this.peek();
    this.expect(open);
    if (++this.depth > SCIM_FILTER_LIMITS.depth)
      throw new ScimFilterError(`nested deeper than ${SCIM_FILTER_LIMITS.depth} at ${token.at}`);
    const filter = this.or();
    this.expect(close);
    this.depth--;
    return filter;
  }

  private term(): ScimFilter {
    const token = this.next();
    if (token.kind !== "word") throw unexpected(token);
    const path = parseAttrPath(token.text, token.at);
    if (this.peek().kind === "[") return this.valuePath(path, this.peek());
    const operator = this.next();
    const op = operator.kind === "word" ? operator.text.toLowerCase() : "";
    if (op === "pr") return { kind: "present", path };
    if (!isCompareOp(op)) throw operator.kind === "word" ? unknownOperator(operator) : unexpected(operator);
    return { kind: "compare", path, op, value: parseValue(this.next()) };
  }

  private valuePath(attribute: AttrPath, bracket: Token): ScimFilter {
    if (this.inBrackets || attribute.subAttribute !== undefined) throw unexpected(bracket);
    this.inBrackets = true;
    const filter = this.group("[", "]");
    this.inBrackets = false;
    return { kind: "valuePath", attribute, filter };
  }
}

const unknownOperator = (token: Token) => new ScimFilterError(`unknown operator ${quoted(token.text)} at ${token.at}`);

export function parseFilter(text: string): ScimFilter {
  if (typeof text !== "string") throw new ScimFilterError("the filter is not text");
  if (text.length > SCIM_FILTER_LIMITS.length)
    throw new ScimFilterError(`longer than ${SCIM_FILTER_LIMITS.length} characters`);
  if (text.trim() === "") throw new ScimFilterError("the filter is empty");
  return new Parser(tokenize(text)).parse();
}

function printPath(path: AttrPath): string {
  const name = path.subAttribute === undefined ? path.attribute : `${path.attribute}.${path.subAttribute}`;
  return path.uri === undefined ? name : `${path.uri}:${name}`;
}

function printValue(value: FilterValue): string {
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  return JSON.stringify(value);
}

const inParentheses = (filter: ScimFilter, needed: boolean) =>
  needed ? `(${printFilter(filter)})` : printFilter(filter);

/** Lower-case keywords, single spaces, and parentheses only where the tree's shape needs them. */
export function printFilter(filter: ScimFilter): string {
  switch (filter.kind) {
    case "compare":
      return `${printPath(filter.path)} ${filter.op} ${printValue(filter.value)}`;
    case "present":
      return `${printPath(filter.path)} pr`;
    case "not":
      return `not (${printFilter(filter.filter)})`;
    case "valuePath":
      return `${printPath(filter.attribute)}[${printFilter(filter.filter)}]`;
    case "and":
      return `${inParentheses(filter.left, filter.left.kind === "or")} and ${inParentheses(filter.right, filter.right.kind === "and" || filter.right.kind === "or")}`;
    case "or":
      return `${printFilter(filter.left)} or ${inParentheses(filter.right, filter.right.kind === "or")}`;
  }
}

export interface MatchOptions {
  /** Lower-case attribute names (`username`, `emails.value`) whose strings compare exactly. */
  caseExact?: ReadonlySet<string>;
}

interface Context {
  caseExact: ReadonlySet<string>;
  /** `emails.` while evaluating the filter of `emails[…]`, so caseExact names stay whole. */
  prefix: string;
}

/** RFC 7643 2.1: these are caseExact whatever the schema extension says. */
const ALWAYS_CASE_EXACT = new Set(["id", "externalid"]);

export function matches(filter: ScimFilter, resource: Record<string, unknown>, options: MatchOptions = {}): boolean {
  return evaluate(filter, resource, { caseExact: options.caseExact ?? new Set(), prefix: "" });
}

function evaluate(filter: ScimFilter, resource: Record<string, unknown>, context: Context): boolean {
  switch (filter.kind) {
    case "and":
      return evaluate(filter.left, resource, context) && evaluate(filter.right, resource, context);
    case "or":
      return evaluate(filter.left, resource, context) || evaluate(filter.right, resource, context);
    case "not":
      return !evaluate(filter.filter, resource, context);
    case "present":
      return isPresent(resolve(filter.path, resource));
    case "compare":
      return compare(filter.op, resolve(filter.path, resource), filter.value, isCaseExact(filter.path, context));
    case "valuePath":
      return someElement(filter, resource, context);
  }
}

function someElement(
  filter: Extract<ScimFilter, { kind: "valuePath" }>,
  resource: Record<string, unknown>,
  context: Context,
): boolean {
  const value = resolve(filter.attribute, resource);
  const elements = Array.isArray(value) ? value : [value];
  const inner = { ...context, prefix: `${context.prefix}${pathName(filter.attribute)}.` };
  return elements.some((element) => isRecord(element) && evaluate(filter.filter, element, inner));
}

const pathName = (path: AttrPath) =>
  (path.subAttribute === undefined ? path.attribute : `${path.attribute}.${path.subAttribute}`).toLowerCase();

function isCaseExact(path: AttrPath, context: Context): boolean {
  const name = `${context.prefix}${pathName(path)}`;
  return ALWAYS_CASE_EXACT.has(name) || context.caseExact.has(name);
}

/** The value a path names; a sub-attribute of a multi-valued attribute is the list of the elements' values. */
function resolve(path: AttrPath, resource: Record<string, unknown>): unknown {
  const container = path.uri === undefined || isCoreSchema(path.uri) ? resource : lookup(resource, path.uri);
  const value = isRecord(container) ? lookup(container, path.attribute) : undefined;
  if (path.subAttribute === undefined) return value;
  const sub = path.subAttribute;
  if (!Array.isArray(value)) return isRecord(value) ? lookup(value, sub) : undefined;
  return value.flatMap((element) => (isRecord(element) ? [lookup(element, sub)] : [])).filter((v) => v !== undefined);
}

function isPresent(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(isPresent);
  return value !== undefined && value !== null && value !== "";
}

/** A complex value stands for its `value` sub-attribute (`emails eq "a@b"`), as RFC 7644 3.4.2.2 shows. */
function comparable(value: unknown): unknown {
  return isRecord(value) && findKey(value, "value") !== undefined ? lookup(value, "value") : value;
}

function compare(op: CompareOp, actual: unknown, expected: FilterValue, caseExact: boolean): boolean {
  if (op === "ne") return !compare("eq", actual, expected, caseExact);
  const candidates = Array.isArray(actual) ? actual : [actual];
  return candidates.some((candidate) => compareOne(op, comparable(candidate), expected, caseExact));
}

function compareOne(op: CompareOp, actual: unknown, expected: FilterValue, caseExact: boolean): boolean {
  if (typeof actual === "string" && typeof expected === "string") {
    const fold = (text: string) => (caseExact ? text : text.toLowerCase());
    return compareStrings(op, fold(actual), fold(expected));
  }
  if (typeof actual === "number" && typeof expected === "number") return ordered(op, actual, expected);
  if (typeof actual === "boolean" && typeof expected === "boolean") return op === "eq" && actual === expected;
  return op === "eq" && actual === null && expected === null;
}

function compareStrings(op: CompareOp, actual: string, expected: string): boolean {
  if (op === "co") return actual.includes(expected);
  if (op === "sw") return actual.startsWith(expected);
  if (op === "ew") return actual.endsWith(expected);
  return ordered(op, actual, expected);
}

function ordered<T extends string | number>(op: CompareOp, actual: T, expected: T): boolean {
  switch (op) {
    case "eq":
      return actual === expected;
    case "gt":
      return actual > expected;
    case "ge":
      return actual >= expected;
    case "lt":
      return actual < expected;
    case "le":
      return actual <= expected;
    default:
      return false;
  }
}

const LOOKUP_ATTRIBUTES = new Map([
  ["id", "id"],
  ["username", "userName"],
  ["externalid", "externalId"],
  ["displayname", "displayName"],
]);

/**
 * `userName eq "x"` and its like, which a store answers by key instead of a scan. The value
 * is as given: userName and displayName compare ignoring case, id and externalId exactly.
 */
export function equalityLookup(filter: ScimFilter): { attribute: string; value: string } | undefined {
  if (filter.kind !== "compare" || filter.op !== "eq" || typeof filter.value !== "string") return undefined;
  const { uri, attribute, subAttribute } = filter.path;
  if (subAttribute !== undefined || (uri !== undefined && !isCoreSchema(uri))) return undefined;
  const canonical = LOOKUP_ATTRIBUTES.get(attribute.toLowerCase());
  return canonical === undefined ? undefined : { attribute: canonical, value: filter.value };
}
