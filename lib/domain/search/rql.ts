/**
 * RQL (Resource Query Language) as interface §4.7 and 4.8 use it: `and`, `or`, `eq`, `limit`,
 * in the call form `and(eq(a,string:x),eq(b,string:y))` and the FIQL form
 * `a=string:x&(b=y|c=z)` (also `a=eq=x`). A top-level or parenthesised `,` means and.
 *
 * Grammar (tokens: ( ) , & | = < > and words, a word being any run of other characters):
 *
 *   query      := [ disjunction ] EOF
 *   disjunction:= conjunction { "|" conjunction }
 *   conjunction:= primary { ("&" | ",") primary }       "," only outside call arguments
 *   primary    := "(" disjunction ")" | call | comparison
 *   call       := WORD "(" arguments ")"
 *   comparison := WORD "=" [ WORD "=" ] value
 *   value      := [ WORD ]                               may be empty
 *
 * Names and values are split on the structural characters first and percent-decoded
 * afterwards, so a value carrying & | ( ) = < > , (or %) writes them as %26 %7C %28
 * %29 %3D %3C %3E %2C (%25); the whole query is then URL-encoded once more as the
 * `query` parameter (interface §4.7). A `%` not followed by two hex digits stays a `%`.
 * Values may be typed: `string:`, `number:`, `boolean:`; an untyped value is compared
 * by its text. The type prefix is read before decoding, so `%3A` keeps a colon literal.
 */

export type RqlValue =
  | { type: "string"; value: string }
  | { type: "number"; value: number }
  | { type: "boolean"; value: boolean }
  /** Untyped: matches a field whose text equals it. */
  | { type: "auto"; value: string };

export type Condition =
  | { op: "and"; args: Condition[] }
  | { op: "or"; args: Condition[] }
  | { op: "eq"; name: string; value: RqlValue };

export interface RqlQuery {
  filter?: Condition;
  limit?: number;
  offset?: number;
}

/** A malformed query; `position` counts characters from 1. */
export class RqlError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = "RqlError";
  }
}

export const RQL_LIMITS = { length: 4000, depth: 16, comparisons: 50, maxLimit: 1000 } as const;

type TokenKind = "(" | ")" | "," | "&" | "|" | "=" | "<" | ">" | "word" | "end";
interface Token {
  kind: TokenKind;
  text: string;
  /** 1-based position of the token's first character. */
  at: number;
}

const STRUCTURAL = new Set(["(", ")", ",", "&", "|", "=", "<", ">"]);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (STRUCTURAL.has(ch)) {
      tokens.push({ kind: ch as TokenKind, text: ch, at: i + 1 });
      i++;
      continue;
    }
    const start = i;
    while (i < text.length && !STRUCTURAL.has(text[i])) i++;
    tokens.push({ kind: "word", text: text.slice(start, i), at: start + 1 });
  }
  tokens.push({ kind: "end", text: "", at: text.length + 1 });
  return tokens;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** %XX escapes to bytes, read as UTF-8; any other character stands for itself. */
export function percentDecode(raw: string, at: number): string {
  if (!raw.includes("%")) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; ) {
    if (raw[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(raw.slice(i + 1, i + 3), 16));
      i += 3;
      continue;
    }
    const char = String.fromCodePoint(raw.codePointAt(i) as number);
    bytes.push(...encoder.encode(char));
    i += char.length;
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    throw new RqlError(`the escapes in "${raw}" are not valid UTF-8`, at);
  }
}

const TYPED = /^(string|number|boolean):/;

function parseValue(raw: string, at: number): RqlValue {
  const typed = TYPED.exec(raw);
  if (!typed) return { type: "auto", value: percentDecode(raw, at) };
  const text = percentDecode(raw.slice(typed[0].length), at);
  switch (typed[1]) {
    case "string":
      return { type: "string", value: text };
    case "number": {
      const value = Number(text);
      if (text.trim() === "" || !Number.isFinite(value)) throw new RqlError(`"${text}" is not a number`, at);
      return { type: "number", value };
    }
    default:
      if (text !== "true" && text !== "false") throw new RqlError(`"${text}" is not a boolean (true or false)`, at);
      return { type: "boolean", value: text === "true" };
  }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

class Parser {
  private index = 0;
  private comparisons = 0;
  private limit?: { count: number; offset?: number; at: number };
  /** limit(...) was a term of a top-level and(...), which an or beside it would make nested. */
  private limitInTopAnd = false;

  constructor(private readonly tokens: Token[]) {}

  /** A method, not a getter: TypeScript would narrow a getter's kind across take(). */
  private peek(): Token {
    return this.tokens[this.index];
  }

  /** The next tokens open a limit(...) that is a whole argument: the `)` closing it is followed by `,` or `)`. */
  private atLimit(): boolean {
    const [name, open] = [this.tokens[this.index], this.tokens[this.index + 1]];
    if (name.kind !== "word" || name.text !== "limit" || open?.kind !== "(") return false;
    const close = this.tokens.findIndex((t, i) => i > this.index + 1 && t.kind === ")");
    const after = this.tokens[close + 1];
    return close > 0 && (after?.kind === "," || after?.kind === ")");
  }

  private take(): Token {
    return this.tokens[this.index++];
  }

  private expect(kind: TokenKind, what: string): Token {
    const token = this.peek();
    if (token.kind !== kind) throw new RqlError(`expected ${what} but found ${describe(token)}`, token.at);
    return this.take();
  }

  parseQuery(): RqlQuery {
    if (this.peek().kind === "end") return {};
    const filter = this.disjunction(true, 0);
    if (this.peek().kind !== "end") {
      throw new RqlError(`unexpected ${describe(this.peek())}`, this.peek().at);
    }
    return {
      ...(filter && { filter }),
      ...(this.limit && { limit: this.limit.count }),
      ...(this.limit?.offset !== undefined && { offset: this.limit.offset }),
    };
  }

  /** Returns undefined for a term that was only limit(...). */
  private disjunction(commaMeansAnd: boolean, depth: number): Condition | undefined {
    const first = this.peek();
    const args = [this.conjunction(commaMeansAnd, depth)];
    while (this.peek().kind === "|") {
      this.take();
      args.push(this.conjunction(commaMeansAnd, depth));
    }
    if (args.length === 1) return args[0];
    if (args.some((a) => a === undefined)) throw new RqlError("limit(...) cannot be a branch of or", first.at);
    if (depth === 0 && this.limitInTopAnd && this.limit) {
      throw new RqlError("limit(...) applies to the whole query: put it at the top level", this.limit.at);
    }
    return { op: "or", args: args as Condition[] };
  }

  private conjunction(commaMeansAnd: boolean, depth: number): Condition | undefined {
    const args: Array<Condition | undefined> = [this.primary(depth)];
    while (this.peek().kind === "&" || (commaMeansAnd && this.peek().kind === ",")) {
      this.take();
      args.push(this.primary(depth));
    }
    const conditions = args.filter((a): a is Condition => a !== undefined);
    if (conditions.length === 0) return undefined;
    return conditions.length === 1 ? conditions[0] : { op: "and", args: conditions };
  }

  private primary(depth: number): Condition | undefined {
    if (depth >= RQL_LIMITS.depth) {
      throw new RqlError(`the query nests deeper than ${RQL_LIMITS.depth} levels`, this.peek().at);
    }
    const token = this.peek();
    if (token.kind === "(") {
      this.take();
      const inner = this.disjunction(true, depth + 1);
      this.expect(")", "')'");
      if (!inner) throw new RqlError("limit(...) cannot stand in parentheses", token.at);
      return inner;
    }
    if (token.kind !== "word") {
      throw new RqlError(`expected a condition such as name=string:value but found ${describe(token)}`, token.at);
    }
    this.take();
    if (this.peek().kind === "(") return this.call(token, depth);
    return this.comparison(token);
  }

  private call(name: Token, depth: number): Condition | undefined {
    this.take();
    switch (name.text) {
      case "and":
      case "or": {
        if (this.peek().kind === ")") throw new RqlError(`${name.text}() needs at least one condition`, this.peek().at);
        // The query's top level is an implicit and, so `and(a,limit(1))` is `a&limit(1)`.
        const limitMayFollow = name.text === "and" && depth === 0;
        const args: Condition[] = [];
        for (;;) {
          if (limitMayFollow && this.atLimit()) {
            this.call(this.take(), 0);
            this.limitInTopAnd = true;
          } else {
            const arg = this.disjunction(false, depth + 1);
            if (!arg) throw new RqlError(`limit(...) cannot be an argument of ${name.text}`, this.peek().at);
            args.push(arg);
          }
          if (this.peek().kind !== ",") break;
          this.take();
        }
        this.expect(")", `',' or ')' to close ${name.text}(`);
        if (args.length === 0) return undefined;
        return args.length === 1 ? args[0] : { op: name.text, args };
      }
      case "eq": {
        const attribute = this.name(this.expect("word", "an attribute name"));
        this.expect(",", "',' between the name and the value of eq");
        const value = this.value();
        if (this.peek().kind === ",") {
          throw new RqlError("eq takes a name and one value; a ',' inside a value is written %2C", this.peek().at);
        }
        this.expect(")", "')' to close eq(");
        return this.counted({ op: "eq", name: attribute, value });
      }
      case "limit": {
        if (depth > 0) throw new RqlError("limit(...) applies to the whole query: put it at the top level", name.at);
        if (this.limit) throw new RqlError("limit(...) may appear once", name.at);
        const count = this.integer(this.expect("word", "a count"), 1, RQL_LIMITS.maxLimit);
        let offset: number | undefined;
        if (this.peek().kind === ",") {
          this.take();
          offset = this.integer(this.expect("word", "an offset"), 0, Number.MAX_SAFE_INTEGER);
        }
        this.expect(")", "')' to close limit(");
        this.limit = { count, offset, at: name.at };
        return undefined;
      }
      default:
        throw new RqlError(
          `unknown operation "${percentDecode(name.text, name.at)}": the operations are and, or, eq and limit`,
          name.at,
        );
    }
  }

  private comparison(nameToken: Token): Condition {
    const operator = this.peek();
    if (operator.kind === "<" || operator.kind === ">") {
      throw new RqlError(
        `only equality (=) is supported; a ${operator.kind} inside a value is written ${operator.kind === "<" ? "%3C" : "%3E"}`,
        operator.at,
      );
    }
    if (operator.kind !== "=") {
      throw new RqlError(`expected "=" or "(" after "${nameToken.text}" but found ${describe(operator)}`, operator.at);
    }
    this.take();
    const name = this.name(nameToken);
    // FIQL's name=op=value: only eq.
    if (this.peek().kind === "word" && this.tokens[this.index + 1]?.kind === "=") {
      const op = this.take();
      if (op.text !== "eq") {
        throw new RqlError(
          `unknown operator "=${op.text}=": only =eq= is supported; a "=" inside a value is written %3D`,
          op.at,
        );
      }
      this.take();
    }
    return this.counted({ op: "eq", name, value: this.value() });
  }

  private value(): RqlValue {
    const token = this.peek();
    if (token.kind === "word") {
      this.take();
      return parseValue(token.text, token.at);
    }
    if (["&", "|", ")", ",", "end"].includes(token.kind)) return { type: "auto", value: "" };
    throw new RqlError(
      `unexpected ${describe(token)} in a value: write ${token.text} as ${escapeOf(token.text)}`,
      token.at,
    );
  }

  private name(token: Token): string {
    const name = percentDecode(token.text, token.at);
    if (!NAME.test(name)) throw new RqlError(`"${name}" is not an attribute name`, token.at);
    return name;
  }

  private integer(token: Token, min: number, max: number): number {
    const text = token.text.replace(/^number:/, "");
    const value = Number(text);
    if (!/^\d+$/.test(text) || value < min || value > max) {
      throw new RqlError(`"${token.text}" must be a whole number from ${min} to ${max}`, token.at);
    }
    return value;
  }

  private counted(condition: Condition): Condition {
    this.comparisons++;
    if (this.comparisons > RQL_LIMITS.comparisons) {
      throw new RqlError(`the query has more than ${RQL_LIMITS.comparisons} comparisons`, this.peek().at);
    }
    return condition;
  }
}

function escapeOf(char: string): string {
  return `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
}

function describe(token: Token): string {
  if (token.kind === "end") return "the end of the query";
  if (token.kind === "word") return `"${token.text}"`;
  return `"${token.text}"`;
}

export function parseRql(text: string): RqlQuery {
  if (text.length > RQL_LIMITS.length) {
    throw new RqlError(`the query is longer than ${RQL_LIMITS.length} characters`, RQL_LIMITS.length + 1);
  }
  return new Parser(tokenize(text)).parseQuery();
}

/**
 * Whether a field's value equals an RQL value. Typed values compare by type; an
 * untyped one by text, so `locked=true` and `phone=79991234567` read naturally.
 * `fold` brings both strings to the attribute's normal form (case, digits).
 */
export function valueEquals(actual: unknown, expected: RqlValue, fold: (s: string) => string = (s) => s): boolean {
  switch (expected.type) {
    case "string":
      return typeof actual === "string" && fold(actual) === fold(expected.value);
    case "number":
      return typeof actual === "number" && actual === expected.value;
    case "boolean":
      return typeof actual === "boolean" && actual === expected.value;
    case "auto":
      if (typeof actual === "string") return fold(actual) === fold(expected.value);
      return (typeof actual === "number" || typeof actual === "boolean") && String(actual) === expected.value;
  }
}

/** Evaluates a condition against a record's fields. */
export function evaluate(
  condition: Condition,
  field: (name: string) => unknown,
  fold?: (name: string) => (s: string) => string,
): boolean {
  switch (condition.op) {
    case "and":
      return condition.args.every((c) => evaluate(c, field, fold));
    case "or":
      return condition.args.some((c) => evaluate(c, field, fold));
    case "eq":
      return valueEquals(field(condition.name), condition.value, fold?.(condition.name));
  }
}
