import { readFileSync } from "node:fs";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import fc from "fast-check";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { type RouteDefinition, routeKey } from "../../lib/http/route";
import { routes } from "../../lib/routes";
import { roundTripKinds } from "../../lib/store/client";
import { createSampleOrganization } from "../../scripts/bench/round-trips";
import { createClient, invoke, seedAccount } from "../support/fixtures";
import { basicCredentials, prepareRequest } from "../support/requests";
import { expectVersionShape, firstSampleOfEachRoute, PLACEHOLDER_VALUES } from "../support/route-samples";
import {
  applyMutation,
  type Mutation,
  PATH_ATTACKS,
  RQL_ATTACKS,
  sampleMutations,
  schemaMutations,
  UNICODE_EDGES,
} from "../support/schema-garbage";
import { expectNothingStored, tableSnapshot } from "../support/table-snapshot";
import { startTally } from "../support/tally";

/**
 * Bad input over every route of the table, starting from each route's first sample
 * event (valid, with the sample accounts and a real client seeded so the request gets
 * past authentication) and breaking one thing at a time:
 * - mutations made from the route's own request schemas (schema-garbage.ts), a fixed
 *   sample of them per route;
 * - raw bodies: invalid UTF-8 (base64 events, as API Gateway sends binary bodies), deep
 *   nesting, truncated and oversized JSON;
 * - header injection in the headers the service reads;
 * - path traversal and encoded slashes in every path id, RQL injection in searches;
 * - random garbage from fast-check (fixed seed).
 * Never a 500, every error in the route version's shape, and after every refused request
 * the table holds what it held before (tableSnapshot: security events and brute-force
 * counters excepted by design). Every DynamoDB call of the process is counted, so a
 * request that sent no write is known to have stored nothing without a Scan.
 */

// The sweep is about input handling, not hash cost: a bad input that still passes
// validation would otherwise pay a production scrypt (0.5 s) per new password or answer.
vi.mock("../../lib/domain/credentials/password-hash", async (original) => {
  const real = await original<typeof import("../../lib/domain/credentials/password-hash")>();
  // FAST_SCRYPT of test/support/fixtures.ts, which itself imports this module.
  const fast = { N: 2 ** 10, r: 8, p: 1, keyLength: 32 };
  return { ...real, hashPassword: (password: string, params = fast) => real.hashPassword(password, params) };
});

const SEED = 20261121;
const SCHEMA_MUTATIONS_PER_ROUTE = 20;
const RANDOM_RUNS_PER_ROUTE = 8;
const tally = startTally(import.meta.filename);

const INVALID_UTF8: Record<string, number[]> = {
  "lone continuation byte": [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d],
  "truncated two-byte sequence": [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d],
  "overlong slash": [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d],
  "encoded surrogate": [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d],
  "0xFF 0xFE": [0xff, 0xfe, 0x7b, 0x7d],
};

function deep(levels: number): string {
  return `${'{"a":['.repeat(levels)}1${"]}".repeat(levels)}`;
}

type EventChange = { label: string; change: (event: APIGatewayProxyEventV2) => void };

const withBody = (body: string) => (event: APIGatewayProxyEventV2) => {
  event.body = body;
};
const withHeader = (name: string, value: string) => (event: APIGatewayProxyEventV2) => {
  event.headers[name] = value;
};

/** Bodies only matter to routes that read one; the others get the first two (ignored bodies must not hurt). */
const rawBodies: EventChange[] = [
  ...Object.entries(INVALID_UTF8).map(([label, bytes]) => ({
    label: `invalid UTF-8: ${label}`,
    change: (event: APIGatewayProxyEventV2) => {
      event.body = Buffer.from(bytes).toString("base64");
      event.isBase64Encoded = true;
    },
  })),
  { label: "nesting 10,000 deep", change: withBody(deep(10_000)) },
  { label: "truncated JSON", change: withBody('{"user": {"attrs": {"sub": "x"') },
  { label: "body over 1 MB", change: withBody(JSON.stringify({ a: "x".repeat(1_100_000) })) },
  {
    label: "base64 flag on text",
    change: (e) => {
      e.isBase64Encoded = true;
    },
  },
  { label: "JSON body as form", change: withHeader("content-type", "application/x-www-form-urlencoded") },
  { label: "form body as JSON", change: withHeader("content-type", "application/json; charset=utf-16") },
];

const headerInjections: EventChange[] = [
  ...["user-agent", "x-forwarded-for", "accept-language"].flatMap((name): EventChange[] => [
    { label: `${name} with CR LF`, change: withHeader(name, "ok\r\nset-cookie: svc_session=stolen") },
    { label: `${name} of 10k`, change: withHeader(name, "9".repeat(10_000)) },
  ]),
  {
    label: "user-agent with NUL and RTL",
    change: withHeader("user-agent", `a\u0000${UNICODE_EDGES["RTL override"]}`),
  },
  {
    label: "x-forwarded-for list of junk",
    change: withHeader("x-forwarded-for", "::ffff:1.2.3.4, ../, 999.1.1.1"),
  },
];

function isWellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

function parsedBody(route: RouteDefinition, event: APIGatewayProxyEventV2): unknown {
  if (!event.body) return {};
  if (route.request?.body?.contentType === "form") return Object.fromEntries(new URLSearchParams(event.body));
  try {
    return JSON.parse(event.body);
  } catch {
    return {};
  }
}

function asForm(value: unknown): string {
  if (typeof value !== "object" || value === null) return String(value);
  return new URLSearchParams(
    Object.entries(value).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  ).toString();
}

/** The event with one schema mutation applied; undefined when it cannot travel over HTTP. */
function mutated(route: RouteDefinition, base: APIGatewayProxyEventV2, mutation: Mutation) {
  const event = structuredClone(base);
  if (mutation.part === "body") {
    const body = applyMutation(parsedBody(route, base), mutation);
    event.body = route.request?.body?.contentType === "form" ? asForm(body) : JSON.stringify(body);
  } else if (mutation.part === "query") {
    const query = applyMutation(base.queryStringParameters ?? {}, mutation) as Record<string, string>;
    event.queryStringParameters = query;
    event.rawQueryString = new URLSearchParams(query).toString();
  } else {
    const params = applyMutation(base.pathParameters ?? {}, mutation) as Record<string, string>;
    // A path reaches API Gateway as UTF-8: lone surrogates cannot be sent at all.
    if (Object.values(params).some((v) => typeof v !== "string" || !isWellFormed(v))) return undefined;
    withParams(event, params);
  }
  return event;
}

function withParams(event: APIGatewayProxyEventV2, params: Record<string, string>): void {
  event.pathParameters = params;
  event.rawPath = event.routeKey
    .split(" ")[1]
    .replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
}

const randomGarbage = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
);

let values: Record<string, string> = PLACEHOLDER_VALUES;

beforeAll(async () => {
  // The samples' accounts and a real client: a request that passes validation reaches storage.
  await seedAccount({ sub: "sample-user" }, "Sample-Password-0123");
  await seedAccount({ sub: "sample-admin" });
  // The organization whose SCIM token the SCIM samples carry ({{scimToken:sample-org}}).
  await createSampleOrganization(Math.floor(Date.now() / 1000));
  const client = await createClient();
  values = {
    ...PLACEHOLDER_VALUES,
    clientId: client.clientId,
    clientSecret: client.secret,
    clientBasic: basicCredentials(client.clientId, client.secret),
  };
});

describe("bad input over every route", () => {
  const samples = firstSampleOfEachRoute();
  for (const route of routes) {
    const sample = samples.get(routeKey(route));
    if (!sample) continue;
    it(`when ${route.id} gets bad input, it never answers 500, keeps the ${route.version} error shape and stores nothing`, async () => {
      // Tokens are minted once per route, so the table only grows by what requests write.
      const base = await prepareRequest(sample, { values });
      let stored = await tableSnapshot();
      const send = async (event: APIGatewayProxyEventV2, label: string) => {
        const writesBefore = roundTripKinds().writes;
        const result = await invoke(route.fn, event);
        tally.answered(result.statusCode);
        tally.badInput();
        await tally.invariant(() => {
          expect(result.statusCode, `${label}: ${result.body.slice(0, 300)}`).not.toBe(500);
          expect(result.statusCode, label).toBeLessThan(500);
          expectVersionShape(route.version, result.statusCode, result.json, result.body);
        });
        // A request that sent no write left the table as it was: only the others are scanned.
        if (roundTripKinds().writes === writesBefore) return;
        const after = await tableSnapshot();
        const before = stored;
        stored = after;
        if (result.statusCode >= 400) await tally.invariant(() => expectNothingStored(before, after, label));
      };

      const mutations = sampleMutations(schemaMutations(route.request ?? {}), SCHEMA_MUTATIONS_PER_ROUTE, SEED);
      for (const mutation of mutations) {
        const event = mutated(route, base, mutation);
        if (event) await send(event, mutation.label);
      }
      const bodies = route.request?.body ? rawBodies : rawBodies.slice(0, 2);
      for (const { label, change } of [...bodies, ...headerInjections]) {
        const event = structuredClone(base);
        change(event);
        await send(event, label);
      }
      const paramNames = Object.keys(base.pathParameters ?? {});
      for (const attack of paramNames.length > 0 ? PATH_ATTACKS : []) {
        for (const name of paramNames) {
          const event = structuredClone(base);
          withParams(event, { ...base.pathParameters, [name]: attack } as Record<string, string>);
          await send(event, `path ${name}=${attack.slice(0, 40)}`);
        }
      }
      if (route.request?.query?.properties && "query" in (route.request.query.properties as object)) {
        for (const rql of RQL_ATTACKS) {
          const event = structuredClone(base);
          event.queryStringParameters = { ...base.queryStringParameters, query: rql };
          event.rawQueryString = new URLSearchParams(event.queryStringParameters as Record<string, string>).toString();
          await send(event, `rql ${rql.slice(0, 40)}`);
        }
      }
      if (!route.request?.body) return;
      await fc.assert(
        fc.asyncProperty(randomGarbage, async (garbage) => {
          const event = structuredClone(base);
          event.body = typeof garbage === "string" ? garbage : JSON.stringify(garbage);
          await send(event, `random body ${event.body.slice(0, 40)}`);
        }),
        { seed: SEED, numRuns: RANDOM_RUNS_PER_ROUTE },
      );
    }, 30_000);
  }
});

describe("the sample requests the sweep starts from", () => {
  it("when sent unchanged, most reach past validation (the sweep breaks valid requests, not already broken ones)", async () => {
    const samples = firstSampleOfEachRoute();
    let validated = 0;
    for (const route of routes) {
      const sample = samples.get(routeKey(route));
      if (!sample) continue;
      const event = await prepareRequest(sample, { values });
      const result = await invoke(route.fn, event);
      tally.answered(result.statusCode);
      const body = JSON.parse(readFileSync(sample, "utf8")).body as string | undefined;
      if (result.statusCode !== 400 || !body) validated += 1;
    }
    expect(validated).toBeGreaterThan(samples.size * 0.7);
  });
});
