import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import type { FunctionName } from "../http/route";

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/** Each endpoint group's entry module, loaded on first use like a cold start. */
const loaders: Record<FunctionName, () => Promise<{ handler: unknown }>> = {
  token: () => import("../../functions/token"),
  users: () => import("../../functions/users"),
  registration: () => import("../../functions/registration"),
  meta: () => import("../../functions/meta"),
  federation: () => import("../../functions/federation"),
  rights: () => import("../../functions/rights"),
  groups: () => import("../../functions/groups"),
  passwords: () => import("../../functions/passwords"),
  security: () => import("../../functions/security"),
  devices: () => import("../../functions/devices"),
  jobs: () => import("../../functions/jobs"),
  audit: () => import("../../functions/audit"),
  hosted: () => import("../../functions/hosted"),
  account: () => import("../../functions/account"),
  clients: () => import("../../functions/clients"),
  events: () => import("../../functions/events"),
  console: () => import("../../functions/console"),
  scim: () => import("../../functions/scim"),
};

const loaded = new Map<FunctionName, LambdaHandler>();

export async function loadFunction(fn: FunctionName): Promise<LambdaHandler> {
  let handler = loaded.get(fn);
  if (!handler) {
    handler = (await loaders[fn]()).handler as LambdaHandler;
    loaded.set(fn, handler);
  }
  return handler;
}

export function isFunctionName(name: string): name is FunctionName {
  return name in loaders;
}
