import type { ValidateFunction } from "ajv";
import type { Context } from "aws-lambda";
import type { Account } from "../domain/accounts/account";
import type { Principal } from "./principal";
import type { RouteDefinition } from "./route";

/** A route's request validators, compiled ahead of time (lib/compiled/<fn>-validators.ts). */
export interface RouteValidators {
  params?: ValidateFunction;
  query?: ValidateFunction;
  body?: ValidateFunction;
}

/** A route as a function serves it: its definition and its validators. */
export interface ServedRoute extends RouteDefinition {
  validate: RouteValidators;
}

/** What the pipeline learns about a request, step by step. */
export interface RequestState {
  requestId: string;
  route?: ServedRoute;
  params: Record<string, string>;
  query: Record<string, string>;
  principal?: Principal;
  /** A SCIM call's organization, the one its SCIM token stands for (docs/scim.md). */
  scimOrg?: string;
  /** The account the call acts on, when the route names one. */
  subject?: string;
  /** A user token's account, read with its session check: routes reuse it. */
  account?: Account;
  /** What the route's `prefetch` plan read with the session check. */
  prefetched?: unknown;
}

export type SvcContext = Context & { svc: RequestState };
