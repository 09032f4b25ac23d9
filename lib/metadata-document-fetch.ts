import { type LookupAddress, lookup } from "node:dns";
import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP } from "node:net";
import { type FetchedDocument, MetadataDocumentError } from "./domain/clients/metadata-document";

/**
 * Fetches client ID metadata documents for the authorization server, under the draft's
 * rules: no redirects, a small document, a short wait, and never an address inside the
 * network (the server would otherwise fetch whatever a client_id names: SSRF). The check
 * is made on the address the connection uses, so DNS cannot answer differently later.
 */

const MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 3000;
/** Without Cache-Control a document is kept this long; never longer than a day. */
const DEFAULT_MAX_AGE = 300;
const LONGEST_MAX_AGE = 86_400;

/** Loopback, private, link-local, shared, documentation-free and multicast ranges (RFC 6890). */
const INTERNAL = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const)
  INTERNAL.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 127],
  ["64:ff9b::", 96],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  INTERNAL.addSubnet(net, bits, "ipv6");

/** Whether an address is outside every internal range. */
export function isPublicAddress(address: string, family: number): boolean {
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) reaches the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return !INTERNAL.check(mapped, "ipv4");
  return !INTERNAL.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** dns.lookup that refuses internal addresses, for the connection's own resolution. */
const publicLookup: RequestOptions["lookup"] = (hostname, options, callback) => {
  lookup(hostname, options, (error, address, family) => {
    if (error) return callback(error, address as string, family);
    const all: LookupAddress[] = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
    const internal = all.find((a) => !isPublicAddress(a.address, a.family));
    if (internal) return callback(new Error(`${hostname} resolves to an internal address`), address as string, family);
    callback(null, address as string, family);
  });
};

/** max-age of a Cache-Control header, bounded; no-store or no-cache keep nothing. */
export function keepSeconds(cacheControl: string | undefined): number {
  if (!cacheControl) return DEFAULT_MAX_AGE;
  if (/\bno-(store|cache)\b/i.test(cacheControl)) return 0;
  const age = /\bmax-age=(\d+)/i.exec(cacheControl)?.[1];
  return age === undefined ? DEFAULT_MAX_AGE : Math.min(Number(age), LONGEST_MAX_AGE);
}

function read(response: IncomingMessage, url: string): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BYTES) {
        response.destroy();
        fail(new MetadataDocumentError(url, `larger than ${MAX_BYTES} bytes`));
      } else chunks.push(chunk);
    });
    response.on("end", () => done(Buffer.concat(chunks).toString("utf8")));
    response.on("error", fail);
  });
}

/**
 * Fetches one document; `allowInternal` (local tools and tests only) lets plain http and
 * loopback addresses through, as documents served on the developer's machine are.
 */
export function fetchMetadataDocument(url: string, allowInternal: boolean): Promise<FetchedDocument> {
  let late: NodeJS.Timeout | undefined;
  return new Promise<FetchedDocument>((done, fail) => {
    const https = url.startsWith("https:");
    if (!https && !allowInternal) return fail(new MetadataDocumentError(url, "not https"));
    // An address written in the URL is connected to without a lookup: checked here.
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    if (!allowInternal && isIP(host) && !isPublicAddress(host, isIP(host)))
      return fail(new MetadataDocumentError(url, `${host} is an internal address`));
    const send = https ? httpsRequest : httpRequest;
    const request = send(
      url,
      {
        method: "GET",
        headers: { accept: "application/json" },
        ...(!allowInternal && { lookup: publicLookup }),
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return fail(new MetadataDocumentError(url, `answered ${response.statusCode}`));
        }
        read(response, url).then((text) => {
          try {
            done({ body: JSON.parse(text), maxAgeSeconds: keepSeconds(response.headers["cache-control"]) });
          } catch {
            fail(new MetadataDocumentError(url, "not JSON"));
          }
        }, fail);
      },
    );
    // The whole exchange, not only a silence, is bounded: a server dripping bytes is cut off too.
    late = setTimeout(
      () => request.destroy(new MetadataDocumentError(url, `no answer within ${TIMEOUT_MS} ms`)),
      TIMEOUT_MS,
    );
    request.on("error", (error) =>
      fail(error instanceof MetadataDocumentError ? error : new MetadataDocumentError(url, error.message)),
    );
    request.end();
  }).finally(() => clearTimeout(late));
}
