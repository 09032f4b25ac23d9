import { digestSecret, generateSecret } from "../credentials/secret-digest";
import { ORGANIZATION_PROFILE } from "../groups/group";
import { groupProblems } from "../groups/problems";
import { authorize, guardOf, type OrganizationDeps, type OrgCaller } from "../organizations/organizations";
import { OrgChangeRefusedError } from "../organizations/ports";
import { rightProblems } from "../rights/problems";
import type { ScimConnection, ScimRepository } from "./ports";
import { scimProblems } from "./problems";

/**
 * An organization's SCIM connection (docs/scim.md): its admin takes a bearer token for the
 * organization's identity provider, shown once; only its SHA-256 digest is kept (256 random
 * bits need no password hash), so the token check on every SCIM call is one GetItem.
 */

/** Tells a SCIM token from other bearer values in logs and secret scanners. */
export const SCIM_TOKEN_PREFIX = "scim_";

export interface ScimConnectionDeps extends Pick<OrganizationDeps, "orgs" | "events"> {
  scim: Pick<ScimRepository, "connection" | "putConnection" | "removeConnection">;
  /** `<issuer>/scim/v2`: what the provider is configured with beside the token. */
  baseUrl: string;
}

const viewOf = (connection: ScimConnection, baseUrl: string) => ({
  orgId: connection.orgId,
  baseUrl,
  tokenHint: connection.tokenHint,
  createdAt: connection.createdAt,
  rotatedAt: connection.rotatedAt,
});

function refusal(error: OrgChangeRefusedError, orgId: string): Error {
  if (error.reasons.includes("org")) return groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  return rightProblems.changedConcurrently();
}

/** The organization of a presented SCIM token; undefined for any token that is not a live one. */
export async function organizationOfToken(
  scim: Pick<ScimRepository, "orgOfToken">,
  token: string,
): Promise<string | undefined> {
  if (!token.startsWith(SCIM_TOKEN_PREFIX) || token.length > 128) return undefined;
  return scim.orgOfToken(digestSecret(token));
}

export type ScimConnectionUseCases = ReturnType<typeof scimConnectionUseCases>;

export function scimConnectionUseCases(deps: ScimConnectionDeps) {
  return {
    adminPrefetch: (sub: string, orgId: string) => deps.orgs.adminPrefetch(sub, orgId),

    /** A new token, replacing the one before at once; the answer is the only time it is shown. */
    async rotate(caller: OrgCaller, orgId: string) {
      await authorize(deps, caller, orgId);
      const token = `${SCIM_TOKEN_PREFIX}${generateSecret()}`;
      const now = Math.floor(Date.now() / 1000);
      const replaced = await deps.scim.connection(orgId);
      const connection: ScimConnection = {
        orgId,
        tokenDigest: digestSecret(token),
        tokenHint: token.slice(-4),
        createdAt: replaced?.createdAt ?? now,
        rotatedAt: now,
      };
      try {
        await deps.scim.putConnection(connection, replaced, guardOf(deps, caller, orgId, "scim", undefined));
      } catch (error) {
        if (!(error instanceof OrgChangeRefusedError)) throw error;
        throw refusal(error, orgId);
      }
      return { ...viewOf(connection, deps.baseUrl), token };
    },

    async read(caller: OrgCaller, orgId: string) {
      await authorize(deps, caller, orgId);
      const connection = await deps.scim.connection(orgId);
      if (!connection) throw scimProblems.notConfigured(orgId);
      return viewOf(connection, deps.baseUrl);
    },

    /** The token stops working; users it provisioned stay, as they are. */
    async remove(caller: OrgCaller, orgId: string) {
      await authorize(deps, caller, orgId);
      const connection = await deps.scim.connection(orgId);
      if (!connection) throw scimProblems.notConfigured(orgId);
      let removed: boolean;
      try {
        removed = await deps.scim.removeConnection(connection, guardOf(deps, caller, orgId, "scim", undefined));
      } catch (error) {
        if (!(error instanceof OrgChangeRefusedError)) throw error;
        throw refusal(error, orgId);
      }
      if (!removed) throw scimProblems.notConfigured(orgId);
    },
  };
}
