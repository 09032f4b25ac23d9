import type { Context } from "aws-lambda";
import type { Account } from "../domain/accounts/account";
import type { Principal } from "./principal";
import type { ServedRoute } from "./route";

/** What the pipeline learns about a request, step by step. */
export interface RequestState {
  requestId: string;
  route?: ServedRoute;
  params: Record<string, string>;
  query: Record<string, string>;
  principal?: Principal;
  /** The account the call acts on, when the route names one. */
  subject?: string;
  /** A user token's account, read with its session check: routes reuse it. */
  account?: Account;
  /** What the route's plan read before it ran: AlongSession or AlongKeys (lib/http/along-session.ts). */
  alongSession?: unknown;
}

export type SvcContext = Context & { svc: RequestState };
