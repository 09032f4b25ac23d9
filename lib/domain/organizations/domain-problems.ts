import { ApiError } from "../errors";

/** Errors of the verified-domain routes (docs/organizations.md#verified-domains). */
export const domainProblems = {
  wrongDomain: (desc: string) =>
    new ApiError(400, "input_error", "wrong_value", desc, { pos: "domain", v2Code: "validation_error" }),

  notFound: (domain: string) =>
    new ApiError(404, "process_error", "domain_not_found", "the organization has not claimed this domain", {
      params: { domain },
      v2Code: "not_found",
    }),

  alreadyClaimed: (domain: string) =>
    new ApiError(409, "process_error", "domain_already_claimed", "the organization has claimed this domain already", {
      params: { domain },
      v2Code: "domain_already_claimed",
    }),

  verifiedElsewhere: (domain: string) =>
    new ApiError(
      409,
      "process_error",
      "domain_verified_elsewhere",
      "another organization has verified this domain; it must remove its claim first",
      { params: { domain }, v2Code: "domain_verified_elsewhere" },
    ),

  /** The TXT record is missing or carries another value; a verified domain was unverified by this check. */
  notVerified: (domain: string, name: string, found: boolean, unverified: boolean) =>
    new ApiError(
      400,
      "process_error",
      "domain_not_verified",
      `${found ? `no TXT record at ${name} carries the expected value` : `no TXT record found at ${name}`}${unverified ? "; the domain is no longer verified" : ""}`,
      { params: { domain, name, unverified }, v2Code: "domain_not_verified" },
    ),

  dnsUnavailable: (domain: string) =>
    new ApiError(503, "process_error", "dns_unavailable", "the DNS did not answer the TXT lookup; try again later", {
      params: { domain },
      v2Code: "service_unavailable",
    }),

  changedConcurrently: () =>
    new ApiError(409, "process_error", "changed_concurrently", "the domain changed while this call ran; try again", {
      v2Code: "changed_concurrently",
    }),
};
