import type { MiddlewareObj } from "@middy/core";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { subjectOfContactState, subjectOfInstanceId } from "../../domain/accounts/instance-id";
import { problems } from "../../domain/errors";
import type { ServedRoute, SvcContext } from "../request-state";

const SUBJECT_OF = {
  subjectId: (raw: string) => raw,
  instanceId: subjectOfInstanceId,
  contactState: subjectOfContactState,
} as const;

/** The account a route's path names, or undefined when the path's id names none of ours. */
export function subjectOfPath(subject: NonNullable<ServedRoute["subject"]>, params: Record<string, string>) {
  return SUBJECT_OF[subject.kind](params[subject.param]);
}

/** RFC 6749 3.3 scope-token: what may stand in a challenge's quoted scope value. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** The route's permission names with `{param}` filled from the path (fed_tkn_<type>_<name>). */
export function acceptedPermissions(names: readonly string[], params: Readonly<Record<string, unknown>>): string[] {
  return names.map((name) => name.replace(/\{([A-Za-z0-9_]+)\}/g, (_, param: string) => String(params[param] ?? "")));
}

/**
 * Route permission against token scope, and in user mode the rule that a user token
 * acts only on its own account (docs/architecture.md). interface §7.2 answers both with bad_access_token.
 */
export function authorization(): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, SvcContext> {
  return {
    before: async (request) => {
      const state = request.context.svc;
      const route = state.route;
      if (!route) return;
      if (route.subject) {
        const subject = subjectOfPath(route.subject, state.params);
        if (subject === undefined)
          throw problems.wrongValue(route.subject.kind, `not a ${route.subject.kind} of this service`);
        state.subject = subject;
      }
      const principal = state.principal;
      if (!principal || !route.permissions) return;
      // An application authenticated by its REST password has every v1/v2 service.
      if (principal.via === "basic") return;
      const named = (principal.mode === "user" ? route.permissions.user : route.permissions.system) ?? [];
      const accepted = acceptedPermissions(named, state.params);
      if (!accepted.some((permission) => principal.scopes.has(permission))) {
        // RFC 6750 3.1: naming the scope tells a standard client that refreshing will not help.
        const scope = accepted.filter((permission) => SCOPE_TOKEN.test(permission)).join(" ");
        throw problems.badAccessToken("insufficient_scope", { error: "insufficient_scope", scope });
      }
      if (principal.mode === "user" && route.subject && state.subject !== principal.sub) {
        throw problems.badAccessToken("wrong_subject");
      }
      if (principal.mode === "user" && route.userHeaders) {
        const headers = request.event.headers ?? {};
        const missing = ["x-forwarded-for", "user-agent"].filter((name) => !headers[name]?.trim());
        if (missing.length > 0) {
          throw problems.wrongValues(
            missing.map((name) => ({
              error: "required",
              pos: name,
              desc: `user mode calls must send the user's ${name} header`,
            })),
          );
        }
      }
    },
  };
}
