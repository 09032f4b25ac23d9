/**
 * DPoP (RFC 9449): a client proves with each request that it holds the private key its
 * tokens are bound to, so a stolen token is useless without the key (docs/sign-in.md).
 */

/** The proof algorithms we verify: asymmetric only (RFC 9449 4.2), the ones client libraries use. */
export const DPOP_ALGS = ["ES256", "ES384", "EdDSA", "RS256", "PS256"] as const;

/** A proof is fresh this long after its iat; its jti is remembered as long, so a replay is caught. */
export const PROOF_MAX_AGE_SECONDS = 300;
/** How far ahead of ours a client's clock may run. */
export const PROOF_CLOCK_SKEW_SECONDS = 60;

/** A proof whose signature, type, key and request binding were checked. */
export interface DpopProof {
  /** The SHA-256 JWK thumbprint (RFC 7638) of the proof's key: what a token's cnf.jkt names. */
  jkt: string;
  jti: string;
  iat: number;
  nonce?: string;
}

/** The request a proof must be made for (htm, htu), and for a resource call the token it carries (ath). */
export interface ProofRequest {
  method: string;
  url: string;
  accessToken?: string;
}

/** RFC 9449 names two refusals: a bad proof, and a proof without the server's current nonce. */
export class DpopError extends Error {
  constructor(
    readonly code: "invalid_dpop_proof" | "use_dpop_nonce" | "invalid_token",
    message: string,
  ) {
    super(message);
    this.name = "DpopError";
  }
}

/** Reads a proof JWT against its request; any flaw throws DpopError("invalid_dpop_proof"). */
export type DpopProofReader = (proof: string, request: ProofRequest) => Promise<DpopProof>;

export interface DpopReplayRepository {
  /** Remembers the proof until `expiresAt`; false when it was seen before (one conditional write). */
  firstUse(jkt: string, jti: string, expiresAt: number): Promise<boolean>;
}

/** Server-provided nonces (RFC 9449 8): the current one, and whether a presented one is still good. */
export interface DpopNonces {
  current(now: number): Promise<string>;
  fresh(nonce: string, now: number): Promise<boolean>;
}

export interface DpopDeps {
  readProof: DpopProofReader;
  replays: DpopReplayRepository;
  /** Set where this endpoint asks for nonces (the token endpoint, when the operator turns them on). */
  nonces?: DpopNonces;
}

/**
 * A proof checked in full: the request binding, its age, the server nonce where one is asked
 * for, then its jti spent once. The write comes last, so a refused proof costs no round trip.
 */
export async function checkProof(
  deps: DpopDeps,
  proof: string,
  request: ProofRequest,
  now: number,
): Promise<DpopProof> {
  const checked = await deps.readProof(proof, request);
  if (checked.iat < now - PROOF_MAX_AGE_SECONDS || checked.iat > now + PROOF_CLOCK_SKEW_SECONDS)
    throw new DpopError("invalid_dpop_proof", "the DPoP proof's iat is too far from the server's time");
  if (deps.nonces && (checked.nonce === undefined || !(await deps.nonces.fresh(checked.nonce, now))))
    throw new DpopError("use_dpop_nonce", "a DPoP proof must carry the nonce the server gave (DPoP-Nonce)");
  const until = checked.iat + PROOF_MAX_AGE_SECONDS + PROOF_CLOCK_SKEW_SECONDS;
  if (!(await deps.replays.firstUse(checked.jkt, checked.jti, until)))
    throw new DpopError("invalid_dpop_proof", "this DPoP proof was already used");
  return checked;
}

/** How an access token came to a resource: its scheme, and with DPoP the proof and its request. */
export interface TokenPresentation {
  scheme: "bearer" | "dpop";
  proof?: string;
  method: string;
  url: string;
}

/**
 * A resource's side (RFC 9449 7.1): a bound token counts only under the DPoP scheme with a
 * proof of its key, and the DPoP scheme only with a bound token. Checked after the token's
 * signature, so a forged token spends no proof.
 */
export async function checkPresentation(
  deps: DpopDeps,
  token: string,
  cnf: { jkt: string } | undefined,
  presented: TokenPresentation,
  now: number,
): Promise<void> {
  if (presented.scheme === "bearer") {
    if (cnf) throw new DpopError("invalid_token", "this access token is DPoP-bound: send it as DPoP with a proof");
    return;
  }
  if (!cnf) throw new DpopError("invalid_token", "this access token is not DPoP-bound: send it as a Bearer token");
  if (presented.proof === undefined) throw new DpopError("invalid_dpop_proof", "a DPoP proof is required");
  const request = { method: presented.method, url: presented.url, accessToken: token };
  const proof = await checkProof(deps, presented.proof, request, now);
  if (proof.jkt !== cnf.jkt)
    throw new DpopError("invalid_dpop_proof", "the DPoP proof's key is not the one the access token is bound to");
}

/** The claim that binds a token to a key (RFC 9449 6.1). */
export const confirmationOf = (jkt: string) => ({ cnf: { jkt } });
