import type { MiddlewareObj } from "@middy/core";
import type { ErrorObject } from "ajv";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { type FieldProblem, OAuthError, problems } from "../../domain/errors";
import type { SvcContext } from "../request-state";

function fieldOf(error: ErrorObject, prefix: string): string {
  const path = error.instancePath.split("/").filter(Boolean);
  if (error.keyword === "required") path.push(String(error.params.missingProperty));
  if (error.keyword === "additionalProperties") path.push(String(error.params.additionalProperty));
  const name = path.join(".");
  return prefix && !name ? prefix : name || prefix || "body";
}

function problemOf(error: ErrorObject, prefix: string): FieldProblem {
  const pos = fieldOf(error, prefix);
  // A key of a free-form map broke its propertyNames rule: name the key, not its map.
  if (error.propertyName !== undefined) {
    const key = pos === "body" ? error.propertyName : `${pos}.${error.propertyName}`;
    return { error: "wrong_value", pos: key, desc: `${key} is not an accepted name` };
  }
  switch (error.keyword) {
    case "required":
      return { error: "required", pos, desc: `${pos} is required` };
    case "additionalProperties":
      return { error: "unknown_field", pos, desc: `${pos} is not an accepted field` };
    case "type":
      return { error: "wrong_type", pos, desc: `${pos} must be ${error.params.type}` };
    case "minProperties":
      return { error: "required", pos, desc: "at least one field is required" };
    case "not":
      return { error: "wrong_value", pos, desc: `${pos} is not an accepted value` };
    default:
      return { error: "wrong_value", pos, desc: `${pos} ${error.message ?? "is not valid"}` };
  }
}

/** One problem per field: the first one ajv found (anyOf branches repeat each other). */
function problemsOf(errors: ErrorObject[] | null | undefined, prefix: string): FieldProblem[] {
  const seen = new Map<string, FieldProblem>();
  for (const error of errors ?? []) {
    // Wrappers: the error inside (a branch, the offending key) says more.
    if (error.keyword === "anyOf" || error.keyword === "if" || error.keyword === "propertyNames") continue;
    const problem = problemOf(error, prefix);
    if (!seen.has(problem.pos)) seen.set(problem.pos, problem);
  }
  return [...seen.values()];
}

/**
 * Checks path parameters, query and body against the route's schemas (docs/architecture.md), with
 * the validators npm run compile-schemas made from them (lib/compiled).
 */
export function validation(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const route = state.route;
      if (!route) return;
      const validators = route.validate ?? {};
      const found: FieldProblem[] = [];
      if (validators.params && !validators.params(state.params)) {
        found.push(...problemsOf(validators.params.errors, ""));
      }
      if (validators.query && !validators.query(state.query)) {
        found.push(...problemsOf(validators.query.errors, ""));
      }
      const body = (request.event as { body?: unknown }).body;
      if (validators.body && body !== undefined && !validators.body(body)) {
        found.push(...problemsOf(validators.body.errors, ""));
      }
      if (found.length === 0) return;
      if (route.invalidInput) throw new OAuthError(route.invalidInput, found.map((p) => p.desc).join("; "));
      throw problems.wrongValues(found);
    },
  };
}
