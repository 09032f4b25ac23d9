import type { PendingWrite } from "../unit-of-work";
import type { DomainPolicy } from "./domain-ports";

/** A domain an organization claimed (docs/organizations.md#verified-domains): pending until its TXT record is seen. */
export interface DomainClaim {
  domain: string;
  orgId: string;
  state: "pending" | "verified";
  policy: DomainPolicy;
  /** The random value the TXT record must carry; it is published in DNS, so no secret. */
  value: string;
  claimedAt: number;
  verifiedAt?: number;
  /** The last DNS check, whatever its outcome. */
  checkedAt?: number;
}

/**
 * Why a domain change was refused, by the condition that failed: the organization (gone),
 * the claim (missing, or already there on a claim), the claim's state moved on since it was
 * read, or another organization holds the domain's directory item.
 */
export type DomainRefusal = "org" | "claim" | "exists" | "stale" | "taken";

export class DomainChangeRefusedError extends Error {
  constructor(readonly reasons: DomainRefusal[]) {
    super("domain change refused");
    this.name = "DomainChangeRefusedError";
  }
}

/** What must still hold when a change commits (user mode: the caller's ORG_ADMIN), and its security event. */
export interface DomainGuard {
  admin?: string;
  alsoWrite: PendingWrite[];
}

/**
 * Organization domains: claims in the organization's partition, and while verified the
 * domain's directory item (DomainDirectory), written and deleted in the same transaction.
 */
export interface OrganizationDomainRepository {
  /** Refused "exists" when this organization claimed it already, "org" when the organization is gone. */
  claim(claim: DomainClaim, guard: DomainGuard): Promise<void>;
  get(orgId: string, domain: string): Promise<DomainClaim | undefined>;
  /** One Query of the organization's partition. */
  list(orgId: string): Promise<DomainClaim[]>;
  /** The claim becomes verified and the directory item names this organization; "taken" when another does. */
  verify(claim: DomainClaim, now: number, guard: DomainGuard): Promise<void>;
  /** The claim becomes pending again and its directory item goes, if it still names this organization. */
  unverify(claim: DomainClaim, now: number, guard: DomainGuard): Promise<void>;
  /** Records a check that changed nothing. */
  checked(claim: DomainClaim, now: number): Promise<void>;
  /** Sets the policy on the claim and, while verified, on the directory item. */
  setPolicy(claim: DomainClaim, policy: DomainPolicy, guard: DomainGuard): Promise<void>;
  /** Deletes the claim and, while verified, its directory item. */
  remove(claim: DomainClaim, guard: DomainGuard): Promise<void>;
  /** Verified claims of every organization, least recently checked first, a bounded page (the daily re-check). */
  verifiedPage(limit: number): Promise<DomainClaim[]>;
}

/** The DNS could not answer (a timeout, a refusal, a server failure): the check is not conclusive. */
export class DnsUnavailableError extends Error {
  constructor(readonly code: string) {
    super(`DNS lookup failed: ${code}`);
    this.name = "DnsUnavailableError";
  }
}

/** TXT lookups; the adapter (lib/dns) reads the resolvers from organizations.dnsResolvers. */
export interface TxtLookup {
  /** Each TXT record's strings joined; [] when the name has none (NXDOMAIN, no data); else DnsUnavailableError. */
  txt(name: string): Promise<string[]>;
}

/** A new account's membership, written in its creation's commit (policy "join", a first SSO sign-in). */
export interface OrganizationJoins {
  /** Conditioned on the organization being live and on custom roles applying to users over groups. */
  joinItems(
    orgId: string,
    sub: string,
    now: number,
    roles?: { roles: string[]; customRights: string[] },
  ): PendingWrite[];
}
