import type { OrgGuard } from "./ports";

/** The federation `fpType` of organizations' connections; `fpName` is the organization's id. */
export const ORG_SSO_TYPE = "org";

/** The claims of the provider's ID token read into an account's attributes. */
export interface SsoClaimMapping {
  email: string;
  emailVerified: string;
  givenName: string;
  familyName: string;
}

/**
 * An organization's own OpenID Connect provider (docs/organizations.md): its endpoints as
 * its discovery document named them when it was configured, our client there, the client
 * secret sealed (lib/crypto/sealed-box.ts), and what a just-in-time account gets.
 */
export interface SsoConnection {
  orgId: string;
  issuer: string;
  authorizeUrl: string;
  tokenUrl: string;
  jwksUri: string;
  clientId: string;
  /** Sealed with the organization's id as context: never returned, never logged. */
  sealedSecret: string;
  scopes: string[];
  claims: SsoClaimMapping;
  /** Roles a member created or joined by its first SSO sign-in holds. */
  defaultRoles: string[];
  enabled: boolean;
  updatedAt: number;
}

/** Refused: the organization is gone, the caller no longer administers it, or a default role is not for groups. */
export { OrgChangeRefusedError } from "./ports";

/** One connection per organization, in the organization's partition. */
export interface OrgSsoRepository {
  get(orgId: string): Promise<SsoConnection | undefined>;
  /** Creates or replaces, guarded like every organization change (OrgChangeRefusedError). */
  put(connection: SsoConnection, guard: OrgGuard): Promise<void>;
  /** False when there was none. */
  remove(orgId: string, guard: OrgGuard): Promise<boolean>;
}
