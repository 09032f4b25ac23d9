import { OAuthError } from "../errors";
import { RELEASABLE_CLAIMS } from "./scopes";

/** The claims a request named one by one, where each is to be released (OIDC Core 5.5). */
export interface RequestedClaims {
  idToken: string[];
  userinfo: string[];
}

/** Longer than any honest request for the few claims we hold. */
export const CLAIMS_PARAMETER_MAX_LENGTH = 4096;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A member's request: null, or an object of essential, value, values (5.5.1). */
function requestProblem(value: unknown): boolean {
  if (value === null) return false;
  if (!isObject(value)) return true;
  if (value.essential !== undefined && typeof value.essential !== "boolean") return true;
  return value.values !== undefined && !Array.isArray(value.values);
}

function namesIn(member: unknown, where: string): string[] {
  if (member === undefined) return [];
  if (!isObject(member)) throw new OAuthError("invalid_request", `claims.${where} must be an object`);
  if (Object.values(member).some(requestProblem))
    throw new OAuthError("invalid_request", `claims.${where} holds a request that is not null or an object`);
  // Claims we do not hold are ignored, as 5.5 allows; those we always send need no asking.
  return Object.keys(member).filter((name) => RELEASABLE_CLAIMS.includes(name));
}

/** The `claims` parameter, or undefined when absent; malformed JSON or members are invalid_request. */
export function parseClaimsRequest(raw: string | undefined): RequestedClaims | undefined {
  if (raw === undefined) return undefined;
  if (raw.length > CLAIMS_PARAMETER_MAX_LENGTH) throw new OAuthError("invalid_request", "claims is too long");
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new OAuthError("invalid_request", "claims is not JSON");
  }
  if (!isObject(parsed)) throw new OAuthError("invalid_request", "claims must be a JSON object");
  return { idToken: namesIn(parsed.id_token, "id_token"), userinfo: namesIn(parsed.userinfo, "userinfo") };
}
