import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate, parseRql, RQL_LIMITS, RqlError } from "../../../../lib/domain/search/rql";
import { escapeRqlValue } from "../../../support/rql";

/** What interface §4.7 asks a client to do to each value: percent-escape & | ( ) = < > , (and %). */
function parsedValue(query: string) {
  const parsed = parseRql(query);
  if (parsed.filter?.op !== "eq") throw new Error(`not one eq: ${query}`);
  return parsed.filter.value;
}

function errorOf(query: string): { message: string; position: number } {
  try {
    parseRql(query);
  } catch (error) {
    if (error instanceof RqlError) return { message: error.message, position: error.position };
    throw error;
  }
  throw new Error(`parsed: ${query}`);
}

describe("RQL values", () => {
  it.each(["&", "|", "(", ")", "=", "<", ">", ",", "%"])(
    "when a value holds %s escaped as the spec says, it comes back whole, in both forms",
    (special) => {
      const value = `a${special}b${special}`;
      expect(parsedValue(`family_name=string:${escapeRqlValue(value)}`)).toEqual({ type: "string", value });
      expect(parsedValue(`eq(family_name,string:${escapeRqlValue(value)})`)).toEqual({ type: "string", value });
    },
  );

  it("when a value holds every special character at once, it comes back whole", () => {
    const value = "O'Neil & Sons (UK) | a=b <c>, 100%";
    expect(parsedValue(`and(eq(family_name,string:${escapeRqlValue(value)}))`)).toEqual({ type: "string", value });
  });

  it("when a value is Unicode, raw or percent-encoded as UTF-8, it is read as the same text", () => {
    for (const value of ["Иванова", "Ёлкина-Щукина", "山田", "Zoë", "e\u0301", "🙂 emoji"]) {
      expect(parsedValue(`given_name=string:${value}`)).toEqual({ type: "string", value });
      expect(parsedValue(`given_name=string:${encodeURIComponent(value)}`)).toEqual({ type: "string", value });
    }
  });

  it("when a value is empty, typed or not, it is the empty string", () => {
    expect(parsedValue("middle_name=")).toEqual({ type: "auto", value: "" });
    expect(parsedValue("middle_name=string:")).toEqual({ type: "string", value: "" });
    expect(parsedValue("eq(middle_name,)")).toEqual({ type: "auto", value: "" });
    expect(parsedValue("eq(middle_name,string:)")).toEqual({ type: "string", value: "" });
  });

  it("when a value is typed, it is converted; an escaped colon keeps a prefix literal", () => {
    expect(parsedValue("a=number:42.5")).toEqual({ type: "number", value: 42.5 });
    expect(parsedValue("a=boolean:false")).toEqual({ type: "boolean", value: false });
    expect(parsedValue("a=string:number:1")).toEqual({ type: "string", value: "number:1" });
    expect(parsedValue("a=number%3A1")).toEqual({ type: "auto", value: "number:1" });
    expect(parsedValue("a=mailto:x")).toEqual({ type: "auto", value: "mailto:x" });
  });

  it("when a % is not followed by two hex digits, it stays a %", () => {
    expect(parsedValue("a=string:100%")).toEqual({ type: "string", value: "100%" });
    expect(parsedValue("a=string:%zz%2")).toEqual({ type: "string", value: "%zz%2" });
  });

  it("when any text is escaped per the spec, parsing gives it back (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (value) => {
        const parsed = parsedValue(`eq(given_name,string:${escapeRqlValue(value)})`);
        return parsed.type === "string" && parsed.value === value;
      }),
      { numRuns: 300 },
    );
  });
});

describe("RQL structure", () => {
  const eq = (name: string, value: string) => ({ op: "eq", name, value: { type: "auto", value } });

  it("when call form and FIQL form say the same, they parse the same", () => {
    const call = parseRql("and(eq(a,1),or(eq(b,2),eq(c,3)))");
    expect(parseRql("a=1&(b=2|c=3)")).toEqual(call);
    expect(parseRql("a=1,(b=2|c=3)")).toEqual(call);
    expect(parseRql("a=eq=1&(b=eq=2|c=eq=3)")).toEqual(call);
    expect(call.filter).toEqual({ op: "and", args: [eq("a", "1"), { op: "or", args: [eq("b", "2"), eq("c", "3")] }] });
  });

  it("when and binds tighter than or, a|b&c is a|(b&c)", () => {
    expect(parseRql("a=1|b=2&c=3").filter).toEqual({
      op: "or",
      args: [eq("a", "1"), { op: "and", args: [eq("b", "2"), eq("c", "3")] }],
    });
  });

  it("when and/or nest deeply, the tree keeps the nesting", () => {
    const parsed = parseRql("or(and(a=1,or(b=2,and(c=3,d=4))),e=5)");
    expect(parsed.filter).toEqual({
      op: "or",
      args: [
        {
          op: "and",
          args: [eq("a", "1"), { op: "or", args: [eq("b", "2"), { op: "and", args: [eq("c", "3"), eq("d", "4")] }] }],
        },
        eq("e", "5"),
      ],
    });
  });

  it("when limit is given at the top level, it is taken apart from the filter", () => {
    expect(parseRql("a=1&limit(5)")).toEqual({ filter: eq("a", "1"), limit: 5 });
    expect(parseRql("limit(5,10),a=1")).toEqual({ filter: eq("a", "1"), limit: 5, offset: 10 });
    expect(parseRql("limit(3)")).toEqual({ limit: 3 });
    expect(parseRql("")).toEqual({});
  });

  it("when limit is a term of the top-level and(...), it means what it means at the top level", () => {
    const filter = { op: "eq", name: "OGRN", value: { type: "string", value: "3541801023813" } };
    expect(parseRql("and(eq(OGRN,string:3541801023813),limit(1))")).toEqual({ filter, limit: 1 });
    expect(parseRql("and(limit(5,10),eq(OGRN,string:3541801023813))")).toEqual({ filter, limit: 5, offset: 10 });
    expect(parseRql("and(a=1,limit(2))&b=2")).toEqual({
      filter: { op: "and", args: [eq("a", "1"), eq("b", "2")] },
      limit: 2,
    });
    expect(parseRql("and(limit(4))")).toEqual({ limit: 4 });
  });

  it("when limit moves between the top level and the top-level and(...), the query is the same; nested, it is refused (property)", () => {
    const term = fc
      .tuple(fc.constantFrom("a", "b", "OGRN", "tag"), fc.stringMatching(/^[A-Za-z0-9]{0,8}$/))
      .map(([name, value]) => `eq(${name},string:${value})`);
    const limit = fc
      .tuple(fc.integer({ min: 1, max: RQL_LIMITS.maxLimit }), fc.option(fc.nat({ max: 10_000 }), { nil: undefined }))
      .map(([count, offset]) => (offset === undefined ? `limit(${count})` : `limit(${count},${offset})`));
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 5 }), limit, fc.nat(), (terms, lim, at) => {
        const place = at % (terms.length + 1);
        const inAnd = [...terms.slice(0, place), lim, ...terms.slice(place)];
        const expected = parseRql(`${terms.join("&")}&${lim}`);
        expect(parseRql(`and(${inAnd.join(",")})`)).toEqual(expected);
        expect(parseRql(`and(${inAnd.join(",")})`)).toEqual(parseRql(`${lim}&and(${terms.join(",")})`));
        for (const nested of [
          `and(${terms[0]},and(${inAnd.join(",")}))`,
          `or(${inAnd.join(",")})`,
          `and(${inAnd.join(",")})|${terms[0]}`,
        ]) {
          expect(errorOf(nested).message).toMatch(
            /limit\(\.\.\.\) applies to the whole query: put it at the top level/,
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it("when a filter is evaluated, typed values compare by type and untyped ones by text", () => {
    const filter = parseRql("and(eq(n,3),or(eq(s,string:Ab),eq(b,true)))").filter!;
    const record = (fields: Record<string, unknown>) => (name: string) => fields[name];
    expect(evaluate(filter, record({ n: 3, s: "Ab", b: false }))).toBe(true);
    expect(evaluate(filter, record({ n: "3", s: "x", b: true }))).toBe(true);
    expect(evaluate(filter, record({ n: 3, s: "ab", b: false }))).toBe(false);
    expect(evaluate(parseRql("n=number:3").filter!, record({ n: "3" }))).toBe(false);
    expect(evaluate(parseRql("s=string:ab").filter!, record({ s: "AB" }), () => (v) => v.toLowerCase())).toBe(true);
  });
});

describe("RQL errors", () => {
  it.each([
    ["a=b=c", 3, /only =eq= is supported; a "=" inside a value is written %3D/],
    ["a<3", 2, /only equality/],
    ["a>3", 2, /%3E/],
    ["eq(a,b,c)", 7, /eq takes a name and one value; a ',' inside a value is written %2C/],
    ["eq(a,b", 7, /expected '\)' to close eq\(/],
    ["eq(a)", 5, /expected ',' between the name and the value/],
    ["ne(a,1)", 1, /unknown operation "ne": the operations are and, or, eq and limit/],
    ["and()", 5, /and\(\) needs at least one condition/],
    ["(a=1", 5, /expected '\)'/],
    ["a=1)", 4, /unexpected "\)"/],
    ["a=1&", 5, /expected a condition/],
    ["&a=1", 1, /expected a condition/],
    ["a=1||b=2", 5, /expected a condition/],
    ["a", 2, /expected "=" or "\(" after "a"/],
    ["a=(b)", 3, /unexpected "\(" in a value: write \( as %28/],
    ["1a=2", 1, /"1a" is not an attribute name/],
    ["a=string:%FF", 3, /not valid UTF-8/],
    ["a=number:x", 3, /"x" is not a number/],
    ["a=boolean:yes", 3, /not a boolean/],
    ["limit(0)", 7, /whole number from 1 to 1000/],
    ["limit(1001)", 7, /whole number from 1 to 1000/],
    ["and(a=1,and(b=2,limit(2)))", 17, /limit\(\.\.\.\) applies to the whole query: put it at the top level/],
    ["or(a=1,limit(1))", 8, /limit\(\.\.\.\) applies to the whole query/],
    ["and(a=1,limit(1))|b=2", 9, /limit\(\.\.\.\) applies to the whole query/],
    ["and(a=1,limit(1)|b=2)", 9, /limit\(\.\.\.\) applies to the whole query/],
    ["(and(a=1,limit(1)))", 10, /limit\(\.\.\.\) applies to the whole query/],
    ["and(a=1,limit(1))&limit(2)", 19, /limit\(\.\.\.\) may appear once/],
    ["limit(1)|a=1", 1, /limit\(\.\.\.\) cannot be a branch of or/],
    ["limit(1)&limit(2)", 10, /limit\(\.\.\.\) may appear once/],
  ])("when the query is %j, it says where (character %i) and what is wrong", (query, position, message) => {
    const error = errorOf(query);
    expect(error.position).toBe(position);
    expect(error.message).toMatch(message);
  });

  it("when the query is too long, too deep or has too many comparisons, it is refused", () => {
    expect(errorOf("a=".padEnd(RQL_LIMITS.length + 1, "x")).message).toMatch(/longer than 4000/);
    expect(errorOf(`${"(".repeat(20)}a=1${")".repeat(20)}`).message).toMatch(/deeper than 16/);
    expect(errorOf(Array.from({ length: 51 }, (_, i) => `a=${i}`).join("&")).message).toMatch(
      /more than 50 comparisons/,
    );
  });
});
