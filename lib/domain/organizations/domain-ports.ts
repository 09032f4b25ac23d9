/**
 * What an organization allows of the addresses of a domain it verified (docs/organizations.md):
 * nothing more (`none`), joining on registration (`join`), or signing in only through its
 * single sign-on (`sso`).
 */
export type DomainPolicy = "none" | "join" | "sso";

export interface VerifiedDomain {
  domain: string;
  orgId: string;
  policy: DomainPolicy;
}

/** Verified domains by domain: a domain is verified by at most one organization at a time. */
export interface DomainDirectory {
  /** The organization that verified `domain` (lower-case), if any: one GetItem. */
  verifiedOwner(domain: string): Promise<VerifiedDomain | undefined>;
}

/** The domain of an e-mail address, lower-case, or undefined when it has none. */
export function domainOf(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  const domain = at > 0 ? email.slice(at + 1).toLowerCase() : "";
  return domain && !domain.includes("#") ? domain : undefined;
}
