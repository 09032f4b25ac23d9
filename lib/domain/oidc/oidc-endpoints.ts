import type { ClientCredentialSource } from "../clients/credential-cache";
import { OAuthError } from "../errors";
import { authenticateClient, presentedClient } from "../oauth/client-authentication";
import { checkPresentation, type DpopDeps, DpopError, type TokenPresentation } from "../oauth/dpop";
import type { AccessTokenClaims } from "../oauth/ports";
import type { SessionRepository } from "../sessions/ports";
import { NO_LONGER_A_MEMBER, type OrganizationRoles } from "./organization";
import { claimsFor } from "./scopes";
import { introspect, revoke, type TokenStatusDeps } from "./token-status";

export interface OidcDeps {
  accessTokens: { verify(token: string, audience?: string | null): Promise<AccessTokenClaims> };
  sessions: SessionRepository;
  clientCredentials: ClientCredentialSource;
  /** DPoP-bound tokens' proofs (RFC 9449 7). */
  dpop: Omit<DpopDeps, "nonces">;
  /** Members' roles, for sessions that act for an organization. */
  organizationRoles: OrganizationRoles;
}

/** UserInfo's answer (OIDC Core 5.3); a refusal names its RFC 6750 3.1 error. */
export type UserInfoAnswer =
  | { ok: true; claims: { sub: string } & Record<string, unknown> }
  | { ok: false; error: "invalid_token" | "invalid_dpop_proof"; description: string }
  | { ok: false; error: "insufficient_scope" };

/** Introspection's and revocation's form: the token, and the client's credentials when it sends them there. */
export type TokenForm = Readonly<Record<string, unknown>> & { token: string };

export type OidcUseCases = ReturnType<typeof oidcUseCases>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What the OpenID Connect endpoints beside the token endpoint do with a token: userinfo, introspection, revocation. */
export function oidcUseCases(deps: OidcDeps) {
  /** null: any audience, so a resource server can introspect tokens made for it (RFC 8707). */
  async function readAccessToken(token: string, audience?: string | null) {
    try {
      return await deps.accessTokens.verify(token, audience);
    } catch {
      return undefined;
    }
  }
  const statusDeps: TokenStatusDeps = {
    sessions: deps.sessions,
    readAccessToken: (token) => readAccessToken(token, null),
  };
  const callingClient = (authorization: string | undefined, form: TokenForm) =>
    authenticateClient(deps.clientCredentials, presentedClient(authorization, form));
  return {
    /** The account's claims that the token's scopes release, while its session lives. */
    async userInfo(token: string, presented: TokenPresentation): Promise<UserInfoAnswer> {
      const claims = await readAccessToken(token);
      if (!claims?.sid) return { ok: false, error: "invalid_token", description: "the access token is not valid" };
      try {
        await checkPresentation(deps.dpop, token, claims.cnf, presented, nowSeconds());
      } catch (error) {
        if (!(error instanceof DpopError)) throw error;
        const code = error.code === "invalid_token" ? "invalid_token" : "invalid_dpop_proof";
        return { ok: false, error: code, description: error.message };
      }
      const scopes = claims.scope.split(" ");
      if (!scopes.includes("openid")) return { ok: false, error: "insufficient_scope" };
      const { session, account } = await deps.sessions.sessionAndAccount(claims.sub, claims.sid);
      if (!session || !account || session.expiresAt <= nowSeconds())
        return { ok: false, error: "invalid_token", description: "the session has ended" };
      const roles = session.organization && (await deps.organizationRoles.rolesIn(account.sub, session.organization));
      if (session.organization && !roles)
        return {
          ok: false,
          error: "invalid_token",
          description: NO_LONGER_A_MEMBER,
        };
      const org = session.organization && roles ? { org_id: session.organization, org_roles: roles } : {};
      return { ok: true, claims: { sub: account.sub, ...claimsFor(account, scopes, session.userinfoClaims), ...org } };
    },

    /** RFC 7662, for confidential clients only, about their own tokens and their audience's. */
    async introspect(authorization: string | undefined, form: TokenForm) {
      const client = await callingClient(authorization, form);
      if (client.public) throw new OAuthError("invalid_client", "a public client cannot introspect");
      return introspect(form.token, client, statusDeps, nowSeconds());
    },

    /** RFC 7009: ends the session behind the calling client's token; nothing else is told. */
    async revoke(authorization: string | undefined, form: TokenForm) {
      const client = await callingClient(authorization, form);
      await revoke(form.token, client, statusDeps, nowSeconds());
    },
  };
}
