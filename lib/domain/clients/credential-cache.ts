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
 * are kept as long, in a map of their own so a flood of them cannot push real clients
 * out: an unknown id must answer as fast as a known one, or timing tells which ids exist.
 * An id asked for before its client was created is therefore unknown for up to
 * `ttlSeconds` in that container. An entry still being read is shared by concurrent
 * requests. A function for `ttlSeconds` is asked on each request, so the setting of that
 * moment applies (local tools and tests switch it).
 */
export function cachedClientCredentials(
  source: ClientCredentialSource,
  ttlSeconds: number | (() => number),
  now: () => number = Date.now,
): ClientCredentialSource {
  const ttl = typeof ttlSeconds === "function" ? ttlSeconds : () => ttlSeconds;
  const entries = new Map<string, { until: number; read: Promise<ClientWithSecrets | undefined> }>();
  const misses = new Map<string, number>();
  const remember = <V>(map: Map<string, V>, key: string, value: V) => {
    if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
    map.set(key, value);
  };
  return {
    getWithSecrets(clientId) {
      const seconds = ttl();
      if (seconds <= 0) {
        // Nothing kept from before may be served once caching is on again.
        entries.clear();
        misses.clear();
        return source.getWithSecrets(clientId);
      }
      const missUntil = misses.get(clientId);
      if (missUntil !== undefined && missUntil > now()) return Promise.resolve(undefined);
      misses.delete(clientId);
      const found = entries.get(clientId);
      if (found && found.until > now()) return found.read;
      entries.delete(clientId);
      const until = now() + seconds * 1000;
      const read = source.getWithSecrets(clientId);
      remember(entries, clientId, { until, read });
      read.then(
        (client) => {
          if (client) return;
          entries.delete(clientId);
          remember(misses, clientId, until);
        },
        // A failed read is asked again next time.
        () => entries.delete(clientId),
      );
      return read;
    },
  };
}
