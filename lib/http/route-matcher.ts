import type { RouteShape } from "./route";

/**
 * Matches a method and a raw path against the route table, as API Gateway does for
 * the deployed stack: used by the local gateway, and to tell 404 from 405.
 */

interface Compiled<R extends RouteShape> {
  route: R;
  pattern: RegExp;
  names: string[];
}

function compile<R extends RouteShape>(route: R): Compiled<R> {
  const names: string[] = [];
  const source = route.path
    .split("/")
    .map((segment) => {
      const variable = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
      if (!variable) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(variable[1]);
      return "([^/]+)";
    })
    .join("/");
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/** Literal segments beat variables, as in API Gateway's most-specific-match rule. */
function specificity(c: Compiled<RouteShape>): number {
  return -c.names.length;
}

export type RouteMatch<R extends RouteShape> =
  | { kind: "route"; route: R; params: Record<string, string> }
  | { kind: "wrong-method"; allowed: string[] }
  | { kind: "none" };

/** A matcher over `routes`: the whole table in the local gateway, a function's own routes in it. */
export function createRouteMatcher<R extends RouteShape>(routes: readonly R[]) {
  const compiled = routes.map(compile);
  return (method: string, path: string): RouteMatch<R> => {
    const match = matchAmong(compiled, method, path);
    // API Gateway routes `/a/b/` as `/a/b` (a route path cannot end in a slash), as the admin
    // console's address `/svc/console/` needs.
    return match.kind === "none" && path.length > 1 && path.endsWith("/")
      ? matchAmong(compiled, method, path.slice(0, -1))
      : match;
  };
}

function matchAmong<R extends RouteShape>(compiled: Compiled<R>[], method: string, path: string): RouteMatch<R> {
  const candidates: Array<{ c: Compiled<R>; values: string[] }> = [];
  for (const c of compiled) {
    const found = c.pattern.exec(path);
    if (found) candidates.push({ c, values: found.slice(1) });
  }
  if (candidates.length === 0) return { kind: "none" };
  const sameMethod = candidates
    .filter(({ c }) => c.route.method === method)
    .sort((a, b) => specificity(b.c) - specificity(a.c));
  if (sameMethod.length === 0) {
    return { kind: "wrong-method", allowed: [...new Set(candidates.map(({ c }) => c.route.method))].sort() };
  }
  const { c, values } = sameMethod[0];
  const params: Record<string, string> = {};
  c.names.forEach((name, i) => {
    params[name] = safeDecode(values[i]);
  });
  return { kind: "route", route: c.route, params };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
