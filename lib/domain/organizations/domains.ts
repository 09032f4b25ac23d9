import { randomBytes } from "node:crypto";
import { ORGANIZATION_PROFILE } from "../groups/group";
import type { GroupRepository } from "../groups/ports";
import { groupProblems } from "../groups/problems";
import type { Prefetch } from "../unit-of-work";
import {
  DnsUnavailableError,
  type DomainChangeRefusedError,
  type DomainClaim,
  type DomainGuard,
  type OrganizationDomainRepository,
  DomainChangeRefusedError as Refused,
  type TxtLookup,
} from "./domain-claim-ports";
import type { DomainPolicy } from "./domain-ports";
import { domainProblems } from "./domain-problems";
import { authorize, type OrgCaller } from "./organizations";
import type { OrganizationRepository } from "./ports";

/** The TXT record's name: this label before the claimed domain (docs/organizations.md#verified-domains). */
export const CHALLENGE_LABEL = "_svc-identity-challenge";
/** The TXT record's value: this prefix, "=", then the claim's random value. */
export const VERIFICATION_PREFIX = "svc-identity-verification";
/** Verified domains re-checked per daily run (the least recently checked first). */
export const RECHECK_PAGE = 100;
/** Claims per organization: listing them stays one Query page. */
export const MAX_DOMAINS = 100;

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const ATTEMPTS = 3;

export interface DomainDeps {
  domains: OrganizationDomainRepository;
  orgs: Pick<OrganizationRepository, "isAdmin" | "adminPrefetch">;
  groups: Pick<GroupRepository, "get">;
  dns: TxtLookup;
}

/**
 * A domain as a claim names it: lower-case LDH labels, at least two, the last not all
 * digits (no IP address), at most 253 characters, no trailing dot.
 */
export function checkDomain(input: string): string {
  const domain = input.toLowerCase();
  if (domain.length > 253) throw domainProblems.wrongDomain("a domain has at most 253 characters");
  if (domain.endsWith(".")) throw domainProblems.wrongDomain("a domain is written without its trailing dot");
  const labels = domain.split(".");
  if (labels.length < 2)
    throw domainProblems.wrongDomain(
      "a domain has at least two labels (example.com); a single label is a public suffix",
    );
  if (!labels.every((label) => LABEL.test(label)))
    throw domainProblems.wrongDomain("each label has 1-63 letters, digits and inner hyphens");
  if (/^[0-9]+$/.test(labels[labels.length - 1])) throw domainProblems.wrongDomain("an IP address is not a domain");
  return domain;
}

/** The TXT record that proves a claim. */
export const txtRecordOf = (claim: Pick<DomainClaim, "domain" | "value">) => ({
  name: `${CHALLENGE_LABEL}.${claim.domain}`,
  value: `${VERIFICATION_PREFIX}=${claim.value}`,
});

/** A claim as the routes answer it. */
export const domainView = (claim: DomainClaim) => ({
  domain: claim.domain,
  state: claim.state,
  policy: claim.policy,
  txt: txtRecordOf(claim),
  claimedAt: claim.claimedAt,
  ...(claim.verifiedAt !== undefined && { verifiedAt: claim.verifiedAt }),
  ...(claim.checkedAt !== undefined && { checkedAt: claim.checkedAt }),
});

const guardOf = (caller: OrgCaller): DomainGuard =>
  caller.mode === "user" ? { admin: caller.sub, alsoWrite: [] } : { alsoWrite: [] };

/** What a refused commit means to the caller; undefined: state moved on, read again. */
function refusalProblem(error: DomainChangeRefusedError, claim: Pick<DomainClaim, "orgId" | "domain">) {
  const { reasons } = error;
  if (reasons.includes("org")) return groupProblems.notFound(claim.orgId, ORGANIZATION_PROFILE);
  if (reasons.includes("exists")) return domainProblems.alreadyClaimed(claim.domain);
  if (reasons.includes("taken")) return domainProblems.verifiedElsewhere(claim.domain);
  return undefined;
}

/** Runs `change` on the claim as read just before; a claim that moved on is read again. */
async function withClaim<T>(
  deps: DomainDeps,
  orgId: string,
  domain: string,
  change: (claim: DomainClaim) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const claim = await deps.domains.get(orgId, domain);
    if (!claim) throw domainProblems.notFound(domain);
    try {
      return await change(claim);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      const problem = refusalProblem(error, claim);
      if (problem) throw problem;
    }
  }
  throw domainProblems.changedConcurrently();
}

/** Claims a domain for the organization: pending, policy none, with a fresh verification value. */
export async function claimDomain(deps: DomainDeps, caller: OrgCaller, orgId: string, body: { domain: string }) {
  const domain = checkDomain(body.domain);
  await authorize(deps, caller, orgId);
  const claim: DomainClaim = {
    domain,
    orgId,
    state: "pending",
    policy: "none",
    value: randomBytes(24).toString("base64url"),
    claimedAt: Math.floor(Date.now() / 1000),
  };
  try {
    await deps.domains.claim(claim, guardOf(caller));
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    throw refusalProblem(error, claim) ?? domainProblems.changedConcurrently();
  }
  return domainView(claim);
}

/** The organization's claims with their state and policy: one Query, beside the organization's read. */
export async function listDomains(deps: DomainDeps, caller: OrgCaller, orgId: string) {
  await authorize(deps, caller, orgId);
  const [group, claims] = await Promise.all([deps.groups.get(ORGANIZATION_PROFILE, orgId), deps.domains.list(orgId)]);
  if (!group) throw groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  return { domains: claims.map(domainView) };
}

/** Whether the claim's TXT record is published now; DnsUnavailableError when the DNS could not tell. */
async function recordHolds(deps: Pick<DomainDeps, "dns">, claim: DomainClaim) {
  const { name, value } = txtRecordOf(claim);
  const records = await deps.dns.txt(name);
  return { holds: records.includes(value), found: records.length > 0, name };
}

/**
 * Checks the claim's TXT record: published, the claim becomes (or stays) verified and the
 * domain's directory item names the organization, in one transaction; missing or wrong,
 * nothing changes for a pending claim and a verified one is unverified (its directory item
 * deleted) before the refusal is answered.
 */
export async function verifyDomain(deps: DomainDeps, caller: OrgCaller, orgId: string, domainInput: string) {
  const domain = checkDomain(domainInput);
  await authorize(deps, caller, orgId);
  const guard = guardOf(caller);
  return withClaim(deps, orgId, domain, async (claim) => {
    let check: Awaited<ReturnType<typeof recordHolds>>;
    try {
      check = await recordHolds(deps, claim);
    } catch (error) {
      if (error instanceof DnsUnavailableError) throw domainProblems.dnsUnavailable(domain);
      throw error;
    }
    const now = Math.floor(Date.now() / 1000);
    if (check.holds) {
      if (claim.state === "verified") {
        await deps.domains.checked(claim, now);
        return domainView({ ...claim, checkedAt: now });
      }
      await deps.domains.verify(claim, now, guard);
      return domainView({ ...claim, state: "verified", verifiedAt: now, checkedAt: now });
    }
    if (claim.state === "verified") await deps.domains.unverify(claim, now, guard);
    throw domainProblems.notVerified(domain, check.name, check.found, claim.state === "verified");
  });
}

/** Sets what the domain's addresses may do (none, join, sso), on the claim and its directory item together. */
export async function setDomainPolicy(
  deps: DomainDeps,
  caller: OrgCaller,
  orgId: string,
  domainInput: string,
  body: { policy: DomainPolicy },
) {
  const domain = checkDomain(domainInput);
  await authorize(deps, caller, orgId);
  return withClaim(deps, orgId, domain, async (claim) => {
    await deps.domains.setPolicy(claim, body.policy, guardOf(caller));
    return domainView({ ...claim, policy: body.policy });
  });
}

/** Removes the claim and, if verified, the domain's directory item. */
export async function removeDomain(deps: DomainDeps, caller: OrgCaller, orgId: string, domainInput: string) {
  const domain = checkDomain(domainInput);
  await authorize(deps, caller, orgId);
  await withClaim(deps, orgId, domain, (claim) => deps.domains.remove(claim, guardOf(caller)));
}

/**
 * The daily re-check (functions/jobs.ts): a page of verified domains, least recently checked
 * first; each whose record is gone or wrong is unverified. A DNS failure leaves the domain
 * as it is, to be checked again on a later run.
 */
export async function recheckVerifiedDomains(
  deps: Pick<DomainDeps, "domains" | "dns">,
  now: number,
  limit = RECHECK_PAGE,
) {
  const claims = await deps.domains.verifiedPage(limit);
  let unverified = 0;
  let unavailable = 0;
  for (const claim of claims) {
    try {
      const { holds } = await recordHolds(deps, claim);
      if (holds) await deps.domains.checked(claim, now);
      else {
        await deps.domains.unverify(claim, now, { alsoWrite: [] });
        unverified++;
      }
    } catch (error) {
      if (error instanceof DnsUnavailableError) unavailable++;
      // Removed or changed through the API meanwhile: that change stands.
      else if (!(error instanceof Refused)) throw error;
    }
  }
  return { examined: claims.length, unverified, unavailable };
}

export type DomainUseCases = ReturnType<typeof domainUseCases>;

/** The verified-domain calls (docs/organizations.md#verified-domains), bound to their stores. */
export function domainUseCases(deps: DomainDeps) {
  return {
    adminPrefetch: (sub: string, orgId: string): Prefetch<boolean> => deps.orgs.adminPrefetch(sub, orgId),
    claim: (caller: OrgCaller, orgId: string, body: { domain: string }) => claimDomain(deps, caller, orgId, body),
    list: (caller: OrgCaller, orgId: string) => listDomains(deps, caller, orgId),
    verify: (caller: OrgCaller, orgId: string, domain: string) => verifyDomain(deps, caller, orgId, domain),
    setPolicy: (caller: OrgCaller, orgId: string, domain: string, body: { policy: DomainPolicy }) =>
      setDomainPolicy(deps, caller, orgId, domain, body),
    remove: (caller: OrgCaller, orgId: string, domain: string) => removeDomain(deps, caller, orgId, domain),
  };
}
