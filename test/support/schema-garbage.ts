import fc from "fast-check";
import type { Schema as JsonSchema } from "../../lib/http/route";

/**
 * Bad input made from a route's own request schemas (lib/routes.ts): for every property
 * of every level, values of the wrong type, strings at and past their bounds, Unicode
 * edge cases, missing required fields and extra fields. Each mutation says where it
 * applies (path of keys below the body, query or path parameters) so a test can apply
 * it to a valid sample request and reach the property it aims at.
 */

export type RequestPart = "body" | "query" | "params";

export interface Mutation {
  part: RequestPart;
  /** Keys from the part's root to the changed property; empty: the part itself. */
  path: string[];
  /** undefined with `remove`: the property is deleted. */
  value?: unknown;
  remove?: boolean;
  label: string;
}

/** Strings that broke parsers, loggers, key builders or terminals somewhere once. */
export const UNICODE_EDGES: Record<string, string> = {
  "lone high surrogate": "a\ud800b",
  "lone low surrogate": "\udc00",
  "RTL override": "admin\u202egnp.exe",
  "zero-width joiner and space": "a\u200d\u200bb\ufeff",
  NUL: "a\u0000b",
  "emoji with modifiers": "👩🏽‍🚀👨‍👩‍👧‍👦",
  "combining marks": `e${"\u0301".repeat(200)}`,
  "CR LF": "a\r\nb: c",
  "astral plane": "𝕏𝔂𝔷",
};

/** Ids an attacker would put into a path: traversal, encoded slashes, key separators. */
export const PATH_ATTACKS = [
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2f",
  "a/b",
  "a%2Fb",
  "a%252Fb",
  "..\\..\\windows",
  "USER#sample-user",
  "sample-user#PROFILE",
  "%00",
  "a%0d%0ab",
  "",
  ".",
  "x".repeat(3000),
];

/** Search filters (interface §4.7 RQL) that must be refused cleanly or answered, never crash. */
export const RQL_ATTACKS = [
  "eq(email,a",
  "eq(email,a))",
  "and(eq(email,a),",
  "((((((",
  ")",
  "eq(password,x)",
  "eq(PK,USER%23sample-user)",
  "gt(createdAt,0)",
  "like(email,*)",
  "limit(99999999)",
  "limit(-1)",
  "limit(1,99999999999999999999)",
  `${"and(".repeat(200)}eq(email,a)${")".repeat(200)}`,
  `${"or(eq(email,a),".repeat(100)}eq(email,b)${")".repeat(100)}`,
  "eq(email,\u0000)",
  "eq(email,a\ud800)",
  "eq(email,%ZZ)",
  "",
];

/** Numbers storage cannot hold: always tried, they found two 500s (schemas/common.ts). */
const OUT_OF_RANGE = "unstorable";

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).flatMap(typesOf);
  const type = schema.type;
  if (Array.isArray(type)) return type as string[];
  if (typeof type === "string") return [type];
  if (schema.properties) return ["object"];
  if (schema.enum || schema.const !== undefined) return ["enum"];
  return [];
}

const WRONG_TYPES: Record<string, unknown> = {
  string: "a string",
  integer: 42,
  fraction: 1.5,
  negative: -1,
  boolean: true,
  null: null,
  array: ["x"],
  object: { x: 1 },
};

function wrongTypeValues(types: string[]): Array<[string, unknown]> {
  const accepts = (kind: string) =>
    types.includes(kind) ||
    (kind === "fraction" && types.includes("number")) ||
    (kind === "negative" && (types.includes("number") || types.includes("integer"))) ||
    (kind === "integer" && types.includes("number"));
  return Object.entries(WRONG_TYPES)
    .filter(([kind]) => !accepts(kind))
    .map(([kind, value]) => [`wrong type ${kind}`, value]);
}

function stringValues(schema: JsonSchema): Array<[string, unknown]> {
  const values: Array<[string, unknown]> = [
    ["empty string", ""],
    ["huge string (100k)", "x".repeat(100_000)],
    ...Object.entries(UNICODE_EDGES),
  ];
  const max = schema.maxLength as number | undefined;
  const min = schema.minLength as number | undefined;
  if (max !== undefined) {
    values.push([`maxLength ${max} + 1`, "a".repeat(max + 1)]);
    values.push([`maxLength ${max} in emoji`, "😀".repeat(max)]);
  }
  if (min !== undefined && min > 1) values.push([`minLength ${min} - 1`, "a".repeat(min - 1)]);
  if (schema.pattern) values.push(["pattern breaker", "!! not matching ##"]);
  return values;
}

function numberValues(schema: JsonSchema): Array<[string, unknown]> {
  const values: Array<[string, unknown]> = [
    [`${OUT_OF_RANGE} 2^53 + 2`, 2 ** 53 + 2],
    [`${OUT_OF_RANGE} 1e308`, 1e308],
    ["-1e308", -1e308],
    [`${OUT_OF_RANGE} 1e-200`, 1e-200],
  ];
  if (schema.maximum !== undefined) values.push(["maximum + 1", (schema.maximum as number) + 1]);
  if (schema.minimum !== undefined) values.push(["minimum - 1", (schema.minimum as number) - 1]);
  return values;
}

function arrayValues(schema: JsonSchema): Array<[string, unknown]> {
  const max = (schema.maxItems as number | undefined) ?? 1000;
  return [
    [`maxItems ${max} + 1`, Array.from({ length: max + 1 }, (_, i) => `item-${i}`)],
    ["array of nulls", [null, null]],
    ["array of objects", [{ a: 1 }, { b: [2] }]],
    ["nested arrays", [[[["deep"]]]]],
  ];
}

/** Query and path values are strings: the same ideas, as text. */
function asText(values: Array<[string, unknown]>): Array<[string, string]> {
  return values.map(([label, value]) => [label, typeof value === "string" ? value : JSON.stringify(value)]);
}

function propertyMutations(part: RequestPart, path: string[], schema: JsonSchema, depth: number): Mutation[] {
  const types = typesOf(schema);
  let values: Array<[string, unknown]> = [...wrongTypeValues(types)];
  if (types.includes("string") || types.includes("enum")) values.push(...stringValues(schema));
  if (types.includes("integer") || types.includes("number")) values.push(...numberValues(schema));
  if (types.includes("array")) values.push(...arrayValues(schema));
  if (types.includes("enum")) values.push(["not in enum", "definitely-not-allowed"]);
  if (part !== "body") values = asText(values);
  const mutations: Mutation[] = values.map(([label, value]) => ({
    part,
    path,
    value,
    label: `${path.join(".")}: ${label}`,
  }));
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties && depth < 6) mutations.push(...objectMutations(part, path, schema, depth + 1));
  const items = schema.items as JsonSchema | undefined;
  if (items?.properties && depth < 6) {
    mutations.push(...objectMutations(part, [...path, "0"], items, depth + 1));
  }
  return mutations;
}

function objectMutations(part: RequestPart, path: string[], schema: JsonSchema, depth: number): Mutation[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const where = path.length > 0 ? path.join(".") : part;
  const mutations: Mutation[] = [
    {
      part,
      path: [...path, "unexpected_field"],
      value: part === "body" ? { injected: true } : "1",
      label: `${where}: extra field`,
    },
    {
      part,
      path: [...path, "__proto__"],
      value: part === "body" ? { admin: true } : "1",
      label: `${where}: __proto__`,
    },
    ...required.map((name) => ({ part, path: [...path, name], remove: true, label: `${where}: missing ${name}` })),
  ];
  for (const [name, property] of Object.entries(properties)) {
    mutations.push(...propertyMutations(part, [...path, name], property, depth));
  }
  // Maps (user properties, group attributes): a free key with each bad value of its schema.
  if (typeof schema.additionalProperties === "object") {
    mutations.push(...propertyMutations(part, [...path, "free_key"], schema.additionalProperties as JsonSchema, depth));
  }
  return mutations;
}

/** Every mutation of one route's request schemas, in a fixed order. */
export function schemaMutations(request: { params?: JsonSchema; query?: JsonSchema; body?: { schema: JsonSchema } }) {
  const mutations: Mutation[] = [];
  if (request.params) mutations.push(...objectMutations("params", [], request.params, 0));
  if (request.query) mutations.push(...objectMutations("query", [], request.query, 0));
  if (request.body) {
    mutations.push(...objectMutations("body", [], request.body.schema, 0));
    for (const [label, value] of wrongTypeValues(typesOf(request.body.schema))) {
      mutations.push({ part: "body", path: [], value, label: `body: ${label}` });
    }
  }
  return mutations;
}

/** Applies a mutation to a copy of a part's value (JSON body, query or params record). */
export function applyMutation(root: unknown, mutation: Pick<Mutation, "path" | "value" | "remove">): unknown {
  if (mutation.path.length === 0) return mutation.value;
  const copy = structuredClone(root ?? {}) as Record<string, unknown>;
  const top = typeof copy === "object" && copy !== null ? copy : {};
  let node = top as Record<string, unknown>;
  for (const key of mutation.path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = mutation.path[mutation.path.length - 1];
  if (mutation.remove) delete node[last];
  else
    Object.defineProperty(node, last, { value: mutation.value, enumerable: true, writable: true, configurable: true });
  return top;
}

/** Picks a fixed-size sample of a route's mutations (fixed seed: every run tries the same ones). */
export function sampleMutations(mutations: Mutation[], count: number, seed: number): Mutation[] {
  const always = mutations.filter((m) => m.label.includes(OUT_OF_RANGE));
  const rest = mutations.filter((m) => !m.label.includes(OUT_OF_RANGE));
  if (rest.length <= count) return mutations;
  const [picked] = fc.sample(fc.shuffledSubarray(rest, { minLength: count, maxLength: count }), {
    seed,
    numRuns: 1,
  });
  return [...always, ...picked];
}
