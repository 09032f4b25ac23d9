import { type DomainUseCases, MAX_DOMAINS } from "../domain/organizations/domains";
import { jsonResult } from "../http/error-body";
import { group, route } from "../http/route";
import { callerOf, notFound, orgCall, orgId } from "./organizations";
import { badAccessToken, v3Error } from "./schemas";

/** Schemas of the verified-domain calls (docs/organizations.md#verified-domains). */

// Loose on purpose: the domain's own check (lib/domain/organizations/domains.ts) answers what is wrong.
const domain = {
  type: "string",
  minLength: 1,
  maxLength: 253,
  pattern: "^[A-Za-z0-9.-]+$",
  description: "a domain name: lower-case LDH labels, at least two, no trailing dot",
} as const;
const policy = {
  enum: ["none", "join", "sso"],
  description:
    "what the domain's addresses may do: nothing more (none), join the organization on registration (join), sign in only through its SSO (sso)",
} as const;

export const orgDomainParams = {
  type: "object",
  required: ["orgId", "domain"],
  properties: { orgId, domain },
} as const;
export const orgDomainsParams = { type: "object", required: ["orgId"], properties: { orgId } } as const;

export const claimDomainBody = {
  type: "object",
  required: ["domain"],
  additionalProperties: false,
  properties: { domain },
} as const;

export const domainPolicyBody = {
  type: "object",
  required: ["policy"],
  additionalProperties: false,
  properties: { policy },
} as const;

export const orgDomainView = {
  type: "object",
  required: ["domain", "state", "policy", "txt", "claimedAt"],
  properties: {
    domain: { type: "string" },
    state: { enum: ["pending", "verified"] },
    policy: { enum: ["none", "join", "sso"] },
    txt: {
      type: "object",
      required: ["name", "value"],
      description: "the TXT record that proves the claim: publish `value` at `name`",
      properties: {
        name: { type: "string", description: "_svc-identity-challenge.<domain>" },
        value: { type: "string", description: "svc-identity-verification=<random value>" },
      },
    },
    claimedAt: { type: "integer" },
    verifiedAt: { type: "integer" },
    checkedAt: { type: "integer", description: "the last DNS check" },
  },
} as const;

export const orgDomainList = {
  type: "object",
  required: ["domains"],
  properties: { domains: { type: "array", maxItems: MAX_DOMAINS, items: orgDomainView } },
} as const;

const domainNotFound = {
  description: "group_not_found (no such organization, or one the caller does not administer), domain_not_found",
  schema: v3Error,
} as const;

const claimDomain = (domains: DomainUseCases) =>
  route({
    id: "orgs.domain-claim",
    method: "POST",
    path: "/svc/api/v3/orgs/{orgId}/domains",
    ...orgCall,
    summary: "Claim a domain for an organization",
    description:
      "Stores a pending claim with a random verification value and answers the TXT record that proves it: `_svc-identity-challenge.<domain>` carrying `svc-identity-verification=<value>`. Then POST .../domains/{domain}/verify.",
    request: { params: orgDomainsParams, body: { contentType: "json", schema: claimDomainBody, required: true } },
    prefetch: (caller) => domains.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      201: { description: "Claimed, pending", schema: orgDomainView },
      400: { description: "input_error wrong_value (not a domain name)", schema: v3Error },
      401: badAccessToken,
      404: notFound,
      409: { description: "domain_already_claimed", schema: v3Error },
    },
    handler: async (call) => jsonResult(201, await domains.claim(callerOf(call), call.params.orgId, call.body)),
  });

const listDomains = (domains: DomainUseCases) =>
  route({
    id: "orgs.domains",
    method: "GET",
    path: "/svc/api/v3/orgs/{orgId}/domains",
    ...orgCall,
    summary: "An organization's domains with their state and policy",
    description: "One Query of the organization's partition, beside the organization's own read.",
    request: { params: orgDomainsParams },
    prefetch: (caller) => domains.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "The claims", schema: orgDomainList },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: notFound,
    },
    handler: async (call) => jsonResult(200, await domains.list(callerOf(call), call.params.orgId)),
  });

const verifyDomain = (domains: DomainUseCases) =>
  route({
    id: "orgs.domain-verify",
    method: "POST",
    path: "/svc/api/v3/orgs/{orgId}/domains/{domain}/verify",
    ...orgCall,
    summary: "Check a domain's TXT record: verify it, or re-check a verified one",
    description:
      "Looks the TXT record up (organizations.dnsResolvers). Found with the claim's value: the claim becomes verified and the domain's directory item names the organization, in one transaction (publishes domain.verified). Missing or wrong: 400 domain_not_verified; a pending claim is unchanged, a verified one is unverified first and its directory item deleted (publishes domain.unverified). Another organization holding the domain: 409 domain_verified_elsewhere. The DNS not answering: 503 dns_unavailable, nothing changed.",
    request: { params: orgDomainParams },
    prefetch: (caller) => domains.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "Verified", schema: orgDomainView },
      400: { description: "input_error wrong_value; process_error domain_not_verified", schema: v3Error },
      401: badAccessToken,
      404: domainNotFound,
      409: { description: "domain_verified_elsewhere, changed_concurrently", schema: v3Error },
      503: { description: "dns_unavailable", schema: v3Error },
    },
    handler: async (call) =>
      jsonResult(200, await domains.verify(callerOf(call), call.params.orgId, call.params.domain)),
  });

const setPolicy = (domains: DomainUseCases) =>
  route({
    id: "orgs.domain-policy",
    method: "PUT",
    path: "/svc/api/v3/orgs/{orgId}/domains/{domain}",
    ...orgCall,
    summary: "Set what a domain's addresses may do: none, join, sso",
    description:
      "On the claim and, while verified, on the domain's directory item (home-realm discovery reads it), in one transaction. join: an account registered with a confirmed address of the domain joins the organization; sso: its addresses sign in through the organization's single sign-on.",
    request: { params: orgDomainParams, body: { contentType: "json", schema: domainPolicyBody, required: true } },
    prefetch: (caller) => domains.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      200: { description: "The claim now", schema: orgDomainView },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: domainNotFound,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) =>
      jsonResult(200, await domains.setPolicy(callerOf(call), call.params.orgId, call.params.domain, call.body)),
  });

const removeDomain = (domains: DomainUseCases) =>
  route({
    id: "orgs.domain-remove",
    method: "DELETE",
    path: "/svc/api/v3/orgs/{orgId}/domains/{domain}",
    ...orgCall,
    // Enforcement and its proof go with it: a console operator must have signed in recently.
    recentSignIn: true,
    summary: "Remove a domain claim",
    description:
      "Deletes the claim and, if verified, the domain's directory item in one transaction (publishes domain.unverified for a verified one).",
    request: { params: orgDomainParams },
    prefetch: (caller) => domains.adminPrefetch(caller.sub, caller.params.orgId),
    responses: {
      204: { description: "Removed" },
      400: { description: "input_error", schema: v3Error },
      401: badAccessToken,
      404: domainNotFound,
      409: { description: "changed_concurrently", schema: v3Error },
    },
    handler: async (call) => {
      await domains.remove(callerOf(call), call.params.orgId, call.params.domain);
      return jsonResult(204, undefined);
    },
  });

export const organizationDomainRoutes = (domains: DomainUseCases) =>
  group(
    "groups",
    [claimDomain, listDomains, verifyDomain, setPolicy, removeDomain].map((r) => r(domains)),
  );
