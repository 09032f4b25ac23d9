import { open, seal } from "../../crypto/sealed-box";
import { ApiError, problems } from "../errors";
import { ProviderError } from "../federation/provider-client";
import { ORGANIZATION_PROFILE } from "../groups/group";
import { groupProblems } from "../groups/problems";
import { rightProblems } from "../rights/problems";
import { authorize, checkRoles, guardOf, type OrganizationDeps, type OrgCaller, rightProblem } from "./organizations";
import { OrgChangeRefusedError } from "./ports";
import type { OrgSsoRepository, SsoClaimMapping, SsoConnection } from "./sso-ports";
import { discoverProvider, providerUrlAllowed } from "./sso-provider";

/**
 * Single sign-on per organization (docs/organizations.md): an organization admin configures
 * its own OpenID Connect provider; addresses of a domain it verified with policy `sso` sign
 * in there (lib/domain/organizations/sso-sign-in.ts).
 */

export const DEFAULT_SSO_SCOPES = ["openid", "email", "profile"];
export const DEFAULT_CLAIMS: SsoClaimMapping = {
  email: "email",
  emailVerified: "email_verified",
  givenName: "given_name",
  familyName: "family_name",
};

export interface SsoDeps extends Pick<OrganizationDeps, "orgs" | "rightDefinitions" | "events"> {
  sso: OrgSsoRepository;
  /** Seals client secrets (AES-256-GCM); a subkey of the data key. */
  secretKey: () => Promise<Buffer>;
  /** Our callback, registered at the organization's provider. */
  callbackUrl: string;
}

export interface SsoInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes?: string[];
  claims?: Partial<SsoClaimMapping>;
  defaultRoles?: string[];
  enabled?: boolean;
}

/** The sealed secret opens only as this organization's client secret. */
const secretContext = (orgId: string) => `org-sso|${orgId}|client-secret`;

export function openClientSecret(key: Buffer, connection: SsoConnection): string {
  return open(key, connection.sealedSecret, secretContext(connection.orgId));
}

export const ssoProblems = {
  notConfigured: (orgId: string) =>
    new ApiError(404, "process_error", "sso_not_configured", "the organization has no single sign-on connection", {
      params: { orgId },
    }),
  discovery: (why: string) =>
    new ApiError(
      400,
      "process_error",
      "sso_discovery_failed",
      `the provider's discovery document could not be used (${why})`,
    ),
};

/** What the API shows of a connection: everything but the secret. */
function viewOf(connection: SsoConnection, callbackUrl: string) {
  const { sealedSecret: _secret, authorizeUrl: _a, tokenUrl: _t, jwksUri: _j, ...shown } = connection;
  return { ...shown, callbackUrl };
}

async function refusal(deps: SsoDeps, error: OrgChangeRefusedError, orgId: string): Promise<Error> {
  if (error.reasons.includes("org")) return groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  if (error.reasons.includes("right")) return rightProblem(deps, error.rights[0]);
  return rightProblems.changedConcurrently();
}

/** Creates or replaces the connection: the issuer's discovery document is read now, its endpoints kept. */
export async function configureSso(deps: SsoDeps, caller: OrgCaller, orgId: string, input: SsoInput, now: number) {
  await authorize(deps, caller, orgId);
  if (!providerUrlAllowed(input.issuer)) throw problems.wrongValue("issuer", "issuer must be an https URL");
  if (!(input.scopes ?? DEFAULT_SSO_SCOPES).includes("openid"))
    throw problems.wrongValue("scopes", "scopes must include openid");
  const { roles, custom } = checkRoles(input.defaultRoles ?? []);
  let discovered: Awaited<ReturnType<typeof discoverProvider>>;
  try {
    discovered = await discoverProvider(input.issuer);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    throw ssoProblems.discovery(error.code);
  }
  const connection: SsoConnection = {
    orgId,
    ...discovered,
    clientId: input.clientId,
    sealedSecret: seal(await deps.secretKey(), input.clientSecret, secretContext(orgId)),
    scopes: [...new Set(input.scopes ?? DEFAULT_SSO_SCOPES)],
    claims: { ...DEFAULT_CLAIMS, ...input.claims },
    defaultRoles: roles,
    enabled: input.enabled ?? true,
    updatedAt: now,
  };
  const guard = { ...guardOf(deps, caller, orgId, "sso", roles), customRights: custom };
  try {
    await deps.sso.put(connection, guard);
  } catch (error) {
    if (!(error instanceof OrgChangeRefusedError)) throw error;
    throw await refusal(deps, error, orgId);
  }
  return viewOf(connection, deps.callbackUrl);
}

export async function readSso(deps: SsoDeps, caller: OrgCaller, orgId: string) {
  await authorize(deps, caller, orgId);
  const connection = await deps.sso.get(orgId);
  if (!connection) throw ssoProblems.notConfigured(orgId);
  return viewOf(connection, deps.callbackUrl);
}

export async function removeSso(deps: SsoDeps, caller: OrgCaller, orgId: string) {
  await authorize(deps, caller, orgId);
  let removed: boolean;
  try {
    removed = await deps.sso.remove(orgId, guardOf(deps, caller, orgId, "sso", undefined));
  } catch (error) {
    if (!(error instanceof OrgChangeRefusedError)) throw error;
    throw await refusal(deps, error, orgId);
  }
  if (!removed) throw ssoProblems.notConfigured(orgId);
}

export type SsoUseCases = ReturnType<typeof ssoUseCases>;

export function ssoUseCases(deps: SsoDeps) {
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  return {
    adminPrefetch: (sub: string, orgId: string) => deps.orgs.adminPrefetch(sub, orgId),
    configure: (caller: OrgCaller, orgId: string, input: SsoInput) =>
      configureSso(deps, caller, orgId, input, nowSeconds()),
    read: (caller: OrgCaller, orgId: string) => readSso(deps, caller, orgId),
    remove: (caller: OrgCaller, orgId: string) => removeSso(deps, caller, orgId),
  };
}
