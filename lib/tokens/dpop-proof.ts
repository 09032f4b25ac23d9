import { createHash } from "node:crypto";
import { calculateJwkThumbprint, EmbeddedJWK, type JWK, errors as joseErrors, jwtVerify } from "jose";
import { DPOP_ALGS, DpopError, type DpopProof, type ProofRequest } from "../domain/oauth/dpop";

/** DPoP proofs (RFC 9449 4.3) read with jose; the domain decides what a good proof allows. */

const MAX_PROOF_LENGTH = 8192;
const MAX_JTI_LENGTH = 256;

const invalid = (message: string) => new DpopError("invalid_dpop_proof", message);

/** RFC 9449 4.3 step 11: the URI without query and fragment; equal after URL normalisation. */
function sameTarget(htu: unknown, url: string): boolean {
  if (typeof htu !== "string" || !URL.canParse(htu) || !URL.canParse(url)) return false;
  const a = new URL(htu);
  const b = new URL(url);
  return a.origin === b.origin && a.pathname === b.pathname;
}

/** RFC 9449 4.2: the access token's SHA-256, base64url. */
export const accessTokenHash = (token: string) => createHash("sha256").update(token, "ascii").digest("base64url");

export async function readDpopProof(proof: string, request: ProofRequest): Promise<DpopProof> {
  // One proof per request (RFC 9449 4.3 step 1): joined headers arrive as one comma-separated value.
  if (proof.length > MAX_PROOF_LENGTH || proof.includes(",")) throw invalid("send exactly one DPoP proof");
  let payload: Record<string, unknown>;
  let jwk: JWK | undefined;
  try {
    // EmbeddedJWK refuses a private or symmetric key; typ and the algorithm list are checked here.
    const verified = await jwtVerify(proof, EmbeddedJWK, { typ: "dpop+jwt", algorithms: [...DPOP_ALGS] });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError)
      throw invalid("the DPoP proof is not a valid dpop+jwt signed with its jwk");
    throw error;
  }
  const { jti, htm, htu, iat, ath, nonce } = payload;
  if (typeof jti !== "string" || jti === "" || jti.length > MAX_JTI_LENGTH) throw invalid("the DPoP proof needs a jti");
  if (htm !== request.method) throw invalid("the DPoP proof's htm is not this request's method");
  if (!sameTarget(htu, request.url)) throw invalid("the DPoP proof's htu is not this request's URL");
  if (typeof iat !== "number") throw invalid("the DPoP proof needs an iat");
  if (request.accessToken !== undefined && ath !== accessTokenHash(request.accessToken))
    throw invalid("the DPoP proof's ath does not match the access token");
  if (nonce !== undefined && typeof nonce !== "string") throw invalid("the DPoP proof's nonce must be a string");
  return { jkt: await calculateJwkThumbprint(jwk as JWK, "sha256"), jti, iat, ...(nonce !== undefined && { nonce }) };
}
