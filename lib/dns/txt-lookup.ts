import { Resolver } from "node:dns/promises";
import { DnsUnavailableError, type TxtLookup } from "../domain/organizations/domain-claim-ports";

/** Answers that mean the name has no TXT record, rather than that the DNS could not tell. */
const NOT_FOUND = new Set(["ENOTFOUND", "ENODATA"]);

/**
 * TXT lookups through node:dns (c-ares): the resolvers of organizations.dnsResolvers
 * ("ip" or "ip:port"), or the system's when none is named.
 */
export function dnsTxtLookup(settings: { dnsResolvers: string[]; dnsTimeoutMs: number }): TxtLookup {
  return {
    async txt(name) {
      // One resolver per lookup: its servers and timeout are this call's alone.
      const resolver = new Resolver({ timeout: settings.dnsTimeoutMs, tries: 2 });
      if (settings.dnsResolvers.length > 0) resolver.setServers(settings.dnsResolvers);
      try {
        return (await resolver.resolveTxt(name)).map((strings) => strings.join(""));
      } catch (error) {
        const code = (error as { code?: string }).code ?? "unknown";
        if (NOT_FOUND.has(code)) return [];
        throw new DnsUnavailableError(code);
      }
    },
  };
}
