import { publicUrl } from "./public-url";

/**
 * RFC 9728: the management API is a protected resource named by the issuer, and its metadata
 * sits where 3.1 puts it, the well-known segment inserted before the issuer's path (`/svc`).
 */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/svc";

/** Where the metadata of the management API is, for the issuer `<base>/svc`; none for an issuer that is no URL. */
export function resourceMetadataUrl(issuer: string): string | undefined {
  if (!URL.canParse(issuer)) return undefined;
  return publicUrl(issuer, RESOURCE_METADATA_PATH);
}
