import { existsSync, readdirSync, readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { FUNCTION_NAMES, routeKey } from "../../lib/http/route";
import { createRouteMatcher } from "../../lib/http/route-matcher";
import { routes } from "../../lib/routes";

const matchRoute = createRouteMatcher(routes);

describe("the route table", () => {
  it("when listed, no route key appears twice and every id is unique", () => {
    expect(new Set(routes.map(routeKey)).size).toBe(routes.length);
    expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
  });

  it("when a route's request schemas are checked against the 2020-12 meta-schema, they are valid (the cold start skips that check)", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const route of routes) {
      const { params, query, body } = route.request ?? {};
      for (const schema of [params, query, body?.schema].filter(Boolean)) {
        expect(ajv.validateSchema(schema as object), `${route.id}: ${ajv.errorsText()}`).toBe(true);
      }
    }
  });

  it("when paths share a prefix, variables at the same level have the same name (API Gateway and OpenAPI require it)", () => {
    const seen = new Map<string, string>();
    for (const route of routes) {
      const segments = route.path.split("/");
      segments.forEach((segment, depth) => {
        if (!segment.startsWith("{")) return;
        const prefix = segments.slice(0, depth).join("/");
        const earlier = seen.get(prefix);
        expect(earlier === undefined || earlier === segment, `${route.path}: ${segment} vs ${earlier}`).toBe(true);
        seen.set(prefix, segment);
      });
    }
  });

  it("when a route is in the table, its function exists and a sample event of its route key exists", () => {
    const events = readdirSync("events", { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".json"))
      .map((f) => JSON.parse(readFileSync(`events/${f}`, "utf8")) as { routeKey: string });
    for (const route of routes) {
      expect(FUNCTION_NAMES).toContain(route.fn);
      expect(existsSync(`functions/${route.fn}.ts`)).toBe(true);
      expect(
        events.some((e) => e.routeKey === routeKey(route)),
        `sample event for ${routeKey(route)}`,
      ).toBe(true);
    }
  });

  it("when a bearer route is defined, it names the permissions that open it", () => {
    for (const route of routes.filter((r) => r.auth === "bearer" || r.auth === "bearer-or-basic")) {
      const all = [...(route.permissions?.user ?? []), ...(route.permissions?.system ?? [])];
      expect(all.length, route.id).toBeGreaterThan(0);
    }
  });

  it("when a path is matched, literal segments win and methods are told apart", () => {
    expect(matchRoute("GET", "/svc/api/v3/users/abc")).toMatchObject({ kind: "route", params: { subjectId: "abc" } });
    expect(matchRoute("PATCH", "/svc/api/v3/users/abc")).toEqual({
      kind: "wrong-method",
      allowed: ["DELETE", "GET", "POST"],
    });
    expect(matchRoute("GET", "/svc/api/v3/users/abc/def/ghi")).toEqual({ kind: "none" });
    expect(matchRoute("GET", "/svc/api/v3/users/a%20b")).toMatchObject({ params: { subjectId: "a b" } });
  });

  it("when any route's path is asked with its variables filled, that route answers, with a slash after it too", () => {
    for (const route of routes) {
      const path = route.path.replace(/\{([A-Za-z0-9_]+)\}/g, "v-$1");
      const names = [...route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map(([, name]) => name);
      const params = Object.fromEntries(names.map((name) => [name, `v-${name}`]));
      expect(matchRoute(route.method, path), route.id).toEqual({ kind: "route", route, params });
      expect(matchRoute(route.method, `${path}/`), route.id).toEqual({ kind: "route", route, params });
    }
  });
});
