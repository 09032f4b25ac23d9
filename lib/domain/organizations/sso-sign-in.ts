import { randomUUID } from "node:crypto";
import type { FederationProviderConfig } from "../../config/settings";
import { normalizeEmail } from "../accounts/contacts";
import { prepareNewAccount } from "../accounts/new-account";
import { AccountConflictError, type AccountRepository, type AccountSearch } from "../accounts/ports";
import { type BindDeps, toProvider } from "../federation/bind";
import { SID_PATTERN } from "../federation/external-account";
import { FederatedAccountTakenError, type FederationRepository } from "../federation/ports";
import { exchangeCode, ProviderError } from "../federation/provider-client";
import type { BindState } from "../federation/records";
import type { OrganizationJoins } from "./domain-claim-ports";
import { type DomainDirectory, domainOf } from "./domain-ports";
import { checkRoles } from "./organizations";
import { type OrganizationRepository, OrgChangeRefusedError } from "./ports";
import { openClientSecret } from "./sso";
import { enforcedConnection, liveConnection } from "./sso-enforcement";
import { ORG_SSO_TYPE, type OrgSsoRepository, type SsoConnection } from "./sso-ports";

import { verifiedIdToken } from "./sso-provider";

/**
 * Signing in through an organization's own provider (docs/organizations.md): home-realm
 * discovery by the address's verified domain, the federation module's state and PKCE,
 * the code exchange, the ID token checked against the provider's keys, then the linked
 * account, or a new one just in time, a member of the organization with its default roles.
 *
 * The rule that keeps one organization's provider from speaking for another's people: an
 * account is created or linked only for an address of a domain this organization verified.
 */

export interface SsoSignInDeps {
  domains: Pick<DomainDirectory, "verifiedOwner">;
  sso: Pick<OrgSsoRepository, "get">;
  secretKey: () => Promise<Buffer>;
  federation: Pick<FederationRepository, "saveState" | "ownerOf" | "link" | "newAccountLinkItems">;
  joins: OrganizationJoins;
  stateKey: BindDeps["stateKey"];
  accounts: Pick<AccountRepository, "get" | "createWith" | "update">;
  contacts: Pick<AccountSearch, "ownerOfContact">;
  orgs: Pick<OrganizationRepository, "memberState" | "addMember">;
  log: BindDeps["log"];
}

export type OrgSsoOutcome =
  | { ok: true; sub: string; orgId: string }
  | {
      ok: false;
      problem: "denied" | "provider_error" | "sso_unavailable" | "foreign_address" | "account_exists";
    };

/** The federation module's provider shape; the secret is opened only for the code exchange. */
function providerOf(connection: SsoConnection, clientSecret = ""): FederationProviderConfig {
  return {
    type: ORG_SSO_TYPE,
    name: connection.orgId,
    authorizeUrl: connection.authorizeUrl,
    tokenUrl: connection.tokenUrl,
    clientId: connection.clientId,
    clientSecret,
    rememberTokens: false,
    scope: connection.scopes.join(" "),
  };
}

export interface SsoStart {
  clientId: string;
  interaction: string;
  redirectUri: string;
  expiresAt: number;
}

/** The provider's authorization URL for this sign-in (state, PKCE, nonce kept as for any provider). */
async function toOrgProvider(deps: SsoSignInDeps, connection: SsoConnection, start: SsoStart, loginHint?: string) {
  const started = { sub: "", clientId: start.clientId, callback: "", redirectUri: start.redirectUri };
  const url = await toProvider(
    deps,
    providerOf(connection),
    { ...started, interaction: start.interaction },
    start.expiresAt,
  );
  if (loginHint) url.searchParams.set("login_hint", loginHint);
  return url;
}

/** Home-realm discovery: the provider's URL when the address must sign in there; undefined otherwise. */
export async function startByAddress(deps: SsoSignInDeps, address: string, start: SsoStart) {
  const connection = await enforcedConnection(deps, address);
  return connection && toOrgProvider(deps, connection, start, address.trim());
}

/** An authorization request naming its organization: that organization's provider, when it has a live one. */
export async function startByOrganization(deps: SsoSignInDeps, orgId: string, start: SsoStart) {
  const connection = await liveConnection(deps, orgId);
  return connection && toOrgProvider(deps, connection, start);
}

/** Whether the organization offers its single sign-on now (the sign-in page's button). */
export const offersSso = async (deps: Pick<SsoSignInDeps, "sso">, orgId: string) =>
  Boolean(await liveConnection(deps, orgId));

interface Mapped {
  sid: string;
  email?: string;
  emailVerified: boolean;
  given_name?: string;
  family_name?: string;
}

const SID = new RegExp(SID_PATTERN);
const NAME_MAX = 256;

function text(claims: Record<string, unknown>, name: string): string | undefined {
  const value = claims[name];
  return typeof value === "string" && value.trim() !== "" && value.length <= NAME_MAX ? value.trim() : undefined;
}

function mapped(connection: SsoConnection, claims: Record<string, unknown>): Mapped {
  const sid = typeof claims.sub === "string" ? claims.sub : "";
  if (!SID.test(sid)) throw new ProviderError("unavailable", "no_account_id");
  const verified = claims[connection.claims.emailVerified];
  return {
    sid,
    email: text(claims, connection.claims.email),
    emailVerified: verified === true || verified === "true",
    given_name: text(claims, connection.claims.givenName),
    family_name: text(claims, connection.claims.familyName),
  };
}

/** Later sign-ins carry the provider's names over (the provider is the organization's source of truth). */
async function refreshNames(deps: SsoSignInDeps, sub: string, found: Mapped): Promise<void> {
  const account = await deps.accounts.get(sub);
  if (!account) return;
  const set: { given_name?: string; family_name?: string } = {};
  if (found.given_name && found.given_name !== account.given_name) set.given_name = found.given_name;
  if (found.family_name && found.family_name !== account.family_name) set.family_name = found.family_name;
  if (Object.keys(set).length > 0) await deps.accounts.update(sub, { set, remove: [] }, account);
}

/** Why a just-in-time account's commit refused one of its extra writes. */
class FirstSignInRefused extends Error {
  constructor(readonly problem: "account_exists" | "sso_unavailable") {
    super(problem);
  }
}

/**
 * The account for an external account seen for the first time, linked: the owner of its
 * verified address, or a new account created, linked and joined with the default roles in
 * one commit, so no half-made account is left behind. Refused when the address is not one
 * the organization verified.
 */
async function firstSignIn(
  deps: SsoSignInDeps,
  connection: SsoConnection,
  found: Mapped,
  now: number,
): Promise<{ ok: true; sub: string; joined: boolean } | Extract<OrgSsoOutcome, { ok: false }>> {
  const { orgId } = connection;
  const email = found.email && normalizeEmail(found.email);
  const owner = email ? await deps.domains.verifiedOwner(domainOf(email) ?? "") : undefined;
  if (!email || owner?.orgId !== orgId) return { ok: false, problem: "foreign_address" };
  const link = (sub: string) => ({ sub, fpType: ORG_SSO_TYPE, fpName: orgId, sid: found.sid, userName: email });
  const existing = await deps.contacts.ownerOfContact("email", email);
  if (existing) {
    // An account of that address joins only when the provider says the address is its user's.
    if (!found.emailVerified) return { ok: false, problem: "account_exists" };
    try {
      await deps.federation.link(link(existing), now);
    } catch (error) {
      if (!(error instanceof FederatedAccountTakenError)) throw error;
      return { ok: false, problem: "account_exists" };
    }
    return { ok: true, sub: existing, joined: false };
  }
  const prepared = prepareNewAccount(
    {
      email: { value: email, verified: found.emailVerified },
      given_name: found.given_name,
      family_name: found.family_name,
    },
    now,
    randomUUID,
  );
  if ("problems" in prepared) return { ok: false, problem: "foreign_address" };
  const { sub } = prepared.account;
  const { roles, custom } = checkRoles(connection.defaultRoles);
  const linkItems = deps.federation.newAccountLinkItems(link(sub), now);
  const joinItems = deps.joins.joinItems(orgId, sub, now, { roles, customRights: custom });
  try {
    await deps.accounts.createWith(
      prepared.account,
      undefined,
      [...linkItems, ...joinItems],
      (failed) =>
        // The first link item is the external account's claim: another first sign-in took it.
        new FirstSignInRefused(failed.includes(0) ? "account_exists" : "sso_unavailable"),
    );
  } catch (error) {
    if (error instanceof AccountConflictError) return { ok: false, problem: "account_exists" };
    if (error instanceof FirstSignInRefused) return { ok: false, problem: error.problem };
    throw error;
  }
  return { ok: true, sub, joined: true };
}

/**
 * Every SSO sign-in makes the account a member if it is not (the organization's provider
 * vouches for its people; removing one is done there, or by disabling the connection).
 */
async function ensureMember(deps: SsoSignInDeps, connection: SsoConnection, sub: string, now: number) {
  if (await deps.orgs.memberState(connection.orgId, sub)) return;
  const { roles, custom } = checkRoles(connection.defaultRoles);
  try {
    await deps.orgs.addMember(connection.orgId, sub, roles, now, { customRights: custom, alsoWrite: [] });
  } catch (error) {
    if (!(error instanceof OrgChangeRefusedError)) throw error;
    // A concurrent sign-in of the same person joined first: the outcome is the same.
    if (!error.reasons.includes("alreadyMember")) throw error;
  }
}

/** The provider's answer to a state this browser started: the account that signs in. */
export async function completeOrgSso(
  deps: SsoSignInDeps,
  state: BindState,
  answer: { code?: string; error?: string },
  now: number,
): Promise<OrgSsoOutcome> {
  const orgId = state.fpName;
  const connection = await liveConnection(deps, orgId);
  if (!connection) return { ok: false, problem: "sso_unavailable" };
  if (answer.error || !answer.code) return { ok: false, problem: "denied" };
  let found: Mapped;
  try {
    const provider = providerOf(connection, openClientSecret(await deps.secretKey(), connection));
    const tokens = await exchangeCode(provider, {
      code: answer.code,
      redirectUri: state.redirectUri,
      codeVerifier: state.codeVerifier,
    });
    if (!tokens.idToken) throw new ProviderError("unavailable", "no_id_token");
    found = mapped(connection, await verifiedIdToken(connection, tokens.idToken, state.nonce));
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    deps.log("organization sign-in failed at the provider", { orgId, problem: error.message });
    return { ok: false, problem: "provider_error" };
  }
  const linked = await deps.federation.ownerOf(ORG_SSO_TYPE, orgId, found.sid);
  let sub: string;
  if (linked) {
    sub = linked;
    await refreshNames(deps, sub, found);
  } else {
    const first = await firstSignIn(deps, connection, found, now);
    if (!first.ok) return first;
    if (first.joined) return { ok: true, sub: first.sub, orgId };
    sub = first.sub;
  }
  await ensureMember(deps, connection, sub, now);
  return { ok: true, sub, orgId };
}
