import type { ClientRecord, ClientSecrets } from "./client";

export type ClientWithSecrets = ClientRecord & ClientSecrets;

export interface ClientCredentialSource {
  getWithSecrets(clientId: string): Promise<ClientWithSecrets | undefined>;
}

/** Bounds the memory a flood of distinct (real) client ids can take in one container. */
const MAX_ENTRIES = 1000;

/**
 * Client records with their secret digests, kept per container for `ttlSeconds`: client
 * authentication is on every token request, and a read of the table per grant would cap
 * the grant rate at the table's. A deleted client or a changed secret is therefore seen
 * within `ttlSeconds` by warm containers (0: every request reads the table). Unknown ids
 * are never kept, so a new client works at once; an entry still being read is shared by
 * concurrent requests. A function for `ttlSeconds` is asked on each request, so the
 * setting of that moment applies (local tools and tests switch it).
 */
export function cachedClientCredentials(
  source: ClientCredentialSource,
  ttlSeconds: number | (() => number),
  now: () => number = Date.now,
): ClientCredentialSource {
  const ttl = typeof ttlSeconds === "function" ? ttlSeconds : () => ttlSeconds;
  const entries = new Map<string, { until: number; read: Promise<ClientWithSecrets | undefined> }>();
  return {
    getWithSecrets(clientId) {
      const seconds = ttl();
      if (seconds <= 0) {
        // Nothing kept from before may be served once caching is on again.
        entries.clear();
        return source.getWithSecrets(clientId);
      }
      const found = entries.get(clientId);
      if (found && found.until > now()) return found.read;
      entries.delete(clientId);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      const read = source.getWithSecrets(clientId);
      entries.set(clientId, { until: now() + seconds * 1000, read });
      // Unknown clients and failed reads are asked again next time.
      read.then(
        (client) => {
          if (!client) entries.delete(clientId);
        },
        () => entries.delete(clientId),
      );
      return read;
    },
  };
}
