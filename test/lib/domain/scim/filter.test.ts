import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AttrPath,
  type CompareOp,
  equalityLookup,
  type FilterValue,
  matches,
  parseFilter,
  printFilter,
  type ScimFilter,
  ScimFilterError,
} from "../../../../lib/domain/scim/filter";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const CORE_USER = "urn:ietf:params:scim:schemas:core:2.0:User";

/** RFC 7643 8.2's Barbara Jensen, with the attributes RFC 7644 3.4.2.2's examples ask about. */
const bjensen = {
  schemas: [CORE_USER, ENTERPRISE],
  id: "2819c223-7f76-453a-919d-413861904646",
  externalId: "bjensen-701984",
  userName: "bjensen",
  name: { familyName: "O'Malley", givenName: "Barbara" },
  title: "Tour Guide",
  userType: "Employee",
  active: true,
  emails: [
    { value: "bjensen@example.com", type: "work", primary: true },
    { value: "babs@jensen.org", type: "home" },
  ],
  meta: { lastModified: "2011-05-13T04:42:35Z" },
  [ENTERPRISE]: { employeeNumber: "701984", manager: { value: "26118915-6090-4610-87e4-49d8ca9f808d" } },
};

/** Someone the same examples leave out. */
const jsmith = {
  schemas: [CORE_USER],
  id: "jsmith-1",
  userName: "Jsmith",
  userType: "Intern",
  emails: [{ value: "j@smith.net", type: "home" }],
  meta: { lastModified: "2010-01-01T00:00:00Z" },
};

const evaluated = (filter: string) => [matches(parseFilter(filter), bjensen), matches(parseFilter(filter), jsmith)];

describe("the RFC 7644 3.4.2.2 examples", () => {
  it.each<[string, boolean, boolean]>([
    ['userName eq "bjensen"', true, false],
    ['name.familyName co "O\'Malley"', true, false],
    ['userName sw "J"', false, true],
    ["title pr", true, false],
    ['meta.lastModified gt "2011-05-13T04:42:34Z"', true, false],
    ['meta.lastModified ge "2011-05-13T04:42:34Z"', true, false],
    ['meta.lastModified lt "2011-05-13T04:42:34Z"', false, true],
    ['meta.lastModified le "2011-05-13T04:42:34Z"', false, true],
    ['title pr and userType eq "Employee"', true, false],
    ['title pr or userType eq "Intern"', true, true],
    [`schemas eq "${ENTERPRISE}"`, true, false],
    ['userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")', true, false],
    ['userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")', false, true],
    ['userType eq "Employee" and (emails.type eq "work")', true, false],
    ['userType eq "Employee" and emails[type eq "work" and value co "@example.com"]', true, false],
    ['emails[type eq "work" and value co "@example.com"] or emails[type eq "home"]', true, true],
    ['emails[type eq "work" and value co "@example.com"]', true, false],
    [`${ENTERPRISE}:employeeNumber eq "701984"`, true, false],
    [`${ENTERPRISE}:manager.value sw "26118915"`, true, false],
    [`${CORE_USER}:userName eq "bjensen"`, true, false],
  ])("%s", (filter, forBjensen, forJsmith) => {
    expect(evaluated(filter)).toEqual([forBjensen, forJsmith]);
  });

  it("parses the URN paths: the URI up to the last colon, the core schema as none", () => {
    expect(parseFilter(`${ENTERPRISE}:employeeNumber eq "701984"`)).toEqual({
      kind: "compare",
      path: { uri: ENTERPRISE, attribute: "employeeNumber" },
      op: "eq",
      value: "701984",
    });
    expect(parseFilter(`${CORE_USER}:userName eq "bjensen"`)).toEqual(parseFilter('userName eq "bjensen"'));
    expect(parseFilter(`${ENTERPRISE}:manager.value pr`)).toEqual({
      kind: "present",
      path: { uri: ENTERPRISE, attribute: "manager", subAttribute: "value" },
    });
  });

  it("binds not over and over or, and keeps parentheses' grouping", () => {
    const a: ScimFilter = { kind: "present", path: { attribute: "a" } };
    const b: ScimFilter = { kind: "present", path: { attribute: "b" } };
    const c: ScimFilter = { kind: "present", path: { attribute: "c" } };
    expect(parseFilter("a pr or b pr and c pr")).toEqual({
      kind: "or",
      left: a,
      right: { kind: "and", left: b, right: c },
    });
    expect(parseFilter("a pr and b pr or c pr")).toEqual({
      kind: "or",
      left: { kind: "and", left: a, right: b },
      right: c,
    });
    expect(parseFilter("(a pr or b pr) and c pr")).toEqual({
      kind: "and",
      left: { kind: "or", left: a, right: b },
      right: c,
    });
    expect(parseFilter("not (a pr) and b pr")).toEqual({ kind: "and", left: { kind: "not", filter: a }, right: b });
  });

  it("parses a value path as a filter term", () => {
    expect(parseFilter('emails[type eq "work" and value co "@x.com"]')).toEqual({
      kind: "valuePath",
      attribute: { attribute: "emails" },
      filter: {
        kind: "and",
        left: { kind: "compare", path: { attribute: "type" }, op: "eq", value: "work" },
        right: { kind: "compare", path: { attribute: "value" }, op: "co", value: "@x.com" },
      },
    });
  });

  it("reads JSON values: escapes, numbers, true, false, null", () => {
    const value = (filter: string) => {
      const parsed = parseFilter(filter);
      return parsed.kind === "compare" ? parsed.value : "not a comparison";
    };
    expect(value('a eq "say \\"hi\\"\\n\\u00e9"')).toBe('say "hi"\né');
    expect(value("a gt -12.5e2")).toBe(-1250);
    expect(value("a eq True")).toBe(true);
    expect(value("a eq false")).toBe(false);
    expect(value("a eq null")).toBe(null);
  });
});

describe("what the providers send", () => {
  const group = { id: "g-1", displayName: "Group", members: [] };

  it("Okta's userName lookup, Entra's externalId and displayName: matched, and each a direct lookup", () => {
    const okta = { userName: "john@example.com", id: "1" };
    expect(matches(parseFilter('userName eq "john@example.com"'), okta)).toBe(true);
    expect(matches(parseFilter('userName eq "John@Example.com"'), okta)).toBe(true);
    expect(matches(parseFilter(`externalId eq "${bjensen.externalId}"`), bjensen)).toBe(true);
    expect(matches(parseFilter('displayName eq "Group"'), group)).toBe(true);

    expect(equalityLookup(parseFilter('userName eq "john@example.com"'))).toEqual({
      attribute: "userName",
      value: "john@example.com",
    });
    expect(equalityLookup(parseFilter('externalId eq "0a21f0f2-8d2a-4f8e"'))).toEqual({
      attribute: "externalId",
      value: "0a21f0f2-8d2a-4f8e",
    });
    expect(equalityLookup(parseFilter('displayName eq "Group"'))).toEqual({ attribute: "displayName", value: "Group" });
    expect(equalityLookup(parseFilter('ID eq "x"'))).toEqual({ attribute: "id", value: "x" });
    expect(equalityLookup(parseFilter(`${CORE_USER}:USERNAME EQ "x"`))).toEqual({ attribute: "userName", value: "x" });
  });

  it.each([
    'userName ne "x"',
    'userName co "x"',
    "userName eq 1",
    "userName pr",
    'name.familyName eq "x"',
    'title eq "x"',
    `${ENTERPRISE}:employeeNumber eq "1"`,
    'userName eq "x" and id eq "y"',
    'not (userName eq "x")',
    'emails[value eq "x"]',
  ])("%s is no direct lookup", (filter) => {
    expect(equalityLookup(parseFilter(filter))).toBeUndefined();
  });

  it("reads operators and keywords in any case", () => {
    expect(parseFilter('userName EQ "x"')).toEqual(parseFilter('userName eq "x"'));
    expect(parseFilter('a Pr AND NOT (b Eq "x") Or c SW "y"')).toEqual(
      parseFilter('a pr and not (b eq "x") or c sw "y"'),
    );
    expect(matches(parseFilter('USERNAME Eq "BJENSEN"'), bjensen)).toBe(true);
  });
});

describe("matching", () => {
  it("compares id and externalId exactly, other strings ignoring case, and caseExact names exactly", () => {
    expect(matches(parseFilter(`id eq "${bjensen.id.toUpperCase()}"`), bjensen)).toBe(false);
    expect(matches(parseFilter('externalId eq "BJENSEN-701984"'), bjensen)).toBe(false);
    expect(matches(parseFilter('title eq "TOUR GUIDE"'), bjensen)).toBe(true);
    const caseExact = new Set(["title", "emails.value"]);
    expect(matches(parseFilter('title eq "TOUR GUIDE"'), bjensen, { caseExact })).toBe(false);
    expect(matches(parseFilter('emails[value eq "BJENSEN@example.com"]'), bjensen, { caseExact })).toBe(false);
    expect(matches(parseFilter('emails[value eq "bjensen@example.com"]'), bjensen, { caseExact })).toBe(true);
  });

  it("compares only like with like; co, sw, ew only strings", () => {
    const resource = { count: 5, active: true, title: "5", nothing: null };
    expect(matches(parseFilter("count gt 4"), resource)).toBe(true);
    expect(matches(parseFilter("count le 4"), resource)).toBe(false);
    expect(matches(parseFilter('count eq "5"'), resource)).toBe(false);
    expect(matches(parseFilter("title eq 5"), resource)).toBe(false);
    expect(matches(parseFilter("count co 5"), resource)).toBe(false);
    expect(matches(parseFilter("active eq true"), resource)).toBe(true);
    expect(matches(parseFilter("active gt false"), resource)).toBe(false);
    expect(matches(parseFilter("nothing eq null"), resource)).toBe(true);
    expect(matches(parseFilter('title ew "5"'), resource)).toBe(true);
  });

  it("finds nothing on a missing attribute, except that ne is not eq", () => {
    expect(matches(parseFilter('nickName eq "x"'), bjensen)).toBe(false);
    expect(matches(parseFilter('nickName ne "x"'), bjensen)).toBe(true);
    expect(matches(parseFilter('nickName gt ""'), bjensen)).toBe(false);
    expect(matches(parseFilter(`${ENTERPRISE}:department eq "x"`), jsmith)).toBe(false);
    expect(matches(parseFilter('emails[type eq "work"]'), jsmith)).toBe(false);
  });

  it("takes pr as present, not null, not empty text, not an empty list", () => {
    const resource = { a: null, b: "", c: [], d: [null, ""], e: 0, f: false, g: ["x"] };
    const present = (name: string) => matches(parseFilter(`${name} pr`), resource);
    expect(["a", "b", "c", "d", "e", "f", "g", "h"].map(present)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it("names attributes in any case, URN containers too", () => {
    const resource = { USERNAME: "x", [ENTERPRISE.toLowerCase()]: { EmployeeNumber: "7" } };
    expect(matches(parseFilter('userName eq "x"'), resource)).toBe(true);
    expect(matches(parseFilter(`${ENTERPRISE}:employeeNumber eq "7"`), resource)).toBe(true);
  });
});

describe("malformed filters", () => {
  const deep = (levels: number) => `${"(".repeat(levels)}title pr${")".repeat(levels)}`;

  it.each([
    ["unbalanced parentheses", '(userName eq "x"'],
    ["a closing parenthesis too many", 'userName eq "x")'],
    ["a missing value", "userName eq"],
    ["a missing value before and", "userName eq and title pr"],
    ["a bad operator", 'userName xx "x"'],
    ["no operator", "userName"],
    ["an unterminated string", 'userName eq "x'],
    ["an unterminated escape", 'userName eq "x\\'],
    ["a bad escape", 'userName eq "\\q"'],
    ["trailing garbage", 'userName eq "x" garbage'],
    ["a dangling and", 'userName eq "x" and'],
    ["single quotes", "userName eq 'x'"],
    ["an unquoted word as value", "userName eq bjensen"],
    ["an infinite number", "count eq 1e999"],
    ["a sub-attribute after a value path", 'emails[type eq "work"].value eq "x"'],
    ["an unclosed bracket", 'emails[type eq "work"'],
    ["brackets within brackets", "emails[a[b pr]]"],
    ["a bad attribute name", '1name eq "x"'],
    ["two sub-attributes", 'name.a.b eq "x"'],
    ["not without parentheses", "not title pr"],
    ["empty", ""],
    ["blank", "   "],
    ["17 levels deep", deep(17)],
    ["17 levels deep through not and brackets", `${"not (".repeat(16)}emails[type pr]${")".repeat(16)}`],
    ["5000 characters", `userName eq "${"x".repeat(4986)}"`],
  ])("%s is a ScimFilterError", (_, filter) => {
    expect(() => parseFilter(filter)).toThrow(ScimFilterError);
  });

  it("says where: the token and its position", () => {
    expect(() => parseFilter('userName eq "x" xyz')).toThrow('unexpected "xyz" at 17');
    expect(() => parseFilter('userName is "x"')).toThrow('unknown operator "is" at 10');
  });

  it("takes 16 levels, and 4096 characters of conditions", () => {
    expect(parseFilter(deep(16))).toEqual({ kind: "present", path: { attribute: "title" } });
    const terms = Array.from({ length: 370 }, (_, i) => `a${i} pr`).join(" or ");
    expect(terms.length).toBeLessThanOrEqual(4096);
    expect(matches(parseFilter(terms), { a369: "x" })).toBe(true);
  });
});

const NAMES = ["userName", "title", "emails", "value", "type", "x-count", "$ref", "and", "or", "not", "pr", "eq"];
const URIS = [ENTERPRISE, "urn:example:ext:1.0"];
const OPS: CompareOp[] = ["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"];

const pathArbitrary: fc.Arbitrary<AttrPath> = fc.record(
  { uri: fc.constantFrom(...URIS), attribute: fc.constantFrom(...NAMES), subAttribute: fc.constantFrom(...NAMES) },
  { requiredKeys: ["attribute"] },
);

function filterArbitrary(value: fc.Arbitrary<FilterValue>): fc.Arbitrary<ScimFilter> {
  const leaf: fc.Arbitrary<ScimFilter> = fc.oneof(
    fc.record({ kind: fc.constant("compare" as const), path: pathArbitrary, op: fc.constantFrom(...OPS), value }),
    fc.record({ kind: fc.constant("present" as const), path: pathArbitrary }),
  );
  const composite = (tie: fc.Arbitrary<ScimFilter>) => [
    fc.record({ kind: fc.constantFrom<"and" | "or">("and", "or"), left: tie, right: tie }),
    fc.record({ kind: fc.constant("not" as const), filter: tie }),
  ];
  return fc.letrec<{ filter: ScimFilter; inner: ScimFilter }>((tie) => ({
    filter: fc.oneof(
      { maxDepth: 4, depthIdentifier: "filter" },
      leaf,
      ...composite(tie("filter")),
      fc.record({
        kind: fc.constant("valuePath" as const),
        attribute: fc.record(
          { uri: fc.constantFrom(...URIS), attribute: fc.constantFrom(...NAMES) },
          { requiredKeys: ["attribute"] },
        ),
        filter: tie("inner"),
      }),
    ),
    inner: fc.oneof({ maxDepth: 3, depthIdentifier: "inner" }, leaf, ...composite(tie("inner"))),
  })).filter;
}

const anyValue: fc.Arbitrary<FilterValue> = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
/** Few values, so that comparisons with the resource's often hit. */
const smallValue: fc.Arbitrary<FilterValue> = fc.oneof(
  fc.constantFrom("", "a", "A", "ab", "b"),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constant(null),
);
const keyArbitrary = fc.constantFrom(...NAMES, "USERNAME", "Value", "TYPE");
const attributeValue = fc.oneof(
  smallValue,
  fc.dictionary(keyArbitrary, smallValue, { maxKeys: 3 }),
  fc.array(fc.oneof(smallValue, fc.dictionary(keyArbitrary, smallValue, { maxKeys: 3 })), { maxLength: 3 }),
);
const resourceArbitrary = fc
  .tuple(
    fc.dictionary(keyArbitrary, attributeValue, { maxKeys: 6 }),
    fc.dictionary(keyArbitrary, attributeValue, { maxKeys: 3 }),
  )
  .map(([top, extension]): Record<string, unknown> => ({ ...top, [ENTERPRISE]: extension }));

describe("properties", () => {
  it("prints a tree that parses back to the same tree", () => {
    fc.assert(
      fc.property(filterArbitrary(anyValue), (filter) => {
        expect(parseFilter(printFilter(filter))).toEqual(filter);
      }),
      { numRuns: 300 },
    );
  });

  it("matches the printed and re-parsed filter alike; not, and, or follow boolean logic; ne is not eq", () => {
    const filters = filterArbitrary(smallValue);
    fc.assert(
      fc.property(filters, filters, resourceArbitrary, (f, g, resource) => {
        const result = matches(f, resource);
        expect(matches(parseFilter(printFilter(f)), resource)).toBe(result);
        expect(matches({ kind: "not", filter: f }, resource)).toBe(!result);
        expect(matches({ kind: "and", left: f, right: g }, resource)).toBe(result && matches(g, resource));
        expect(matches({ kind: "or", left: f, right: g }, resource)).toBe(result || matches(g, resource));
        if (f.kind === "compare" && f.op === "eq") expect(matches({ ...f, op: "ne" }, resource)).toBe(!result);
      }),
      { numRuns: 300 },
    );
  });

  /** What parsing any text may do: return a tree that prints back to itself, or throw ScimFilterError. */
  function parsesOrRefuses(text: string): void {
    let parsed: ScimFilter;
    try {
      parsed = parseFilter(text);
    } catch (error) {
      expect(error).toBeInstanceOf(ScimFilterError);
      return;
    }
    expect(parseFilter(printFilter(parsed))).toEqual(parsed);
  }

  it("throws nothing but ScimFilterError on any text", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 60 }), parsesOrRefuses), { numRuns: 300 });
  });

  it("throws nothing but ScimFilterError on text made of filter tokens", () => {
    const token = fc.constantFrom(
      "(",
      ")",
      "[",
      "]",
      '"',
      '"x"',
      '"\\u00"',
      '"\\"',
      "\\",
      "and",
      "OR",
      "not",
      "pr",
      "eq",
      "Gt",
      "co",
      "userName",
      "emails",
      "name.familyName",
      ".value",
      ".",
      ":",
      `${ENTERPRISE}:`,
      "urn:a:b",
      "1",
      "-",
      "1e999",
      "true",
      "null",
      " ",
    );
    const text = fc.tuple(fc.array(token, { maxLength: 14 }), fc.constantFrom(" ", "")).map(([t, s]) => t.join(s));
    fc.assert(fc.property(text, parsesOrRefuses), { numRuns: 500 });
  });
});
