import { randomUUID } from "node:crypto";
import type { FederationProviderConfig } from "../../config/settings";
import { problems } from "../errors";
import type { FederationRepository } from "./ports";
import { ProviderError, refreshTokens } from "./provider-client";
import type { StoredTokens } from "./records";
import { openAccessToken, openRefreshToken, sealProviderTokens } from "./token-sealing";

/**
 * interface §4.9 fedToken: the stored external access tokens of an account at one provider,
 * each valid for at least the configured minimum lifetime; one that is not is
 * refreshed first. Concurrent callers refresh a token at most once: the refresh runs
 * under a lease taken by a conditional write on the revision read, and the others wait
 * for the lease holder's result.
 */

export interface FederatedTokenView {
  expiresOn: number;
  token: string;
}

export interface FedTokenDeps {
  federation: Pick<
    FederationRepository,
    "tokensOf" | "takeRefreshLease" | "saveRefreshed" | "releaseLease" | "dropTokens"
  >;
  provider: FederationProviderConfig;
  tokenKey: Buffer;
  minLifetimeSeconds: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  log: (message: string, facts: Record<string, unknown>) => void;
}

/** Longer than a provider call may take (PROVIDER_TIMEOUT_MS), so a live lease is never taken over. */
export const REFRESH_LEASE_SECONDS = 10;
/**
 * How long a caller waits for another's refresh, in steps: about 6 seconds in all, a
 * little more than one provider call may take, and within the function's 10 seconds.
 */
const WAIT_STEPS_MS = [20, 40, 80, 160, 300, 500, 800, 1000, 1000, 1000, 1000];

/** `stored`: the account's token records at the provider (FederationRepository.tokens). */
export async function currentTokens(
  deps: FedTokenDeps,
  stored: readonly StoredTokens[],
): Promise<Record<string, FederatedTokenView>> {
  if (stored.length === 0) throw noToken();
  const views = await Promise.allSettled(stored.map((record) => usable(deps, record)));
  const result: Record<string, FederatedTokenView> = {};
  let unavailable: ProviderError | undefined;
  views.forEach((outcome, i) => {
    if (outcome.status === "fulfilled" && outcome.value) result[stored[i].sid] = outcome.value;
    if (outcome.status === "rejected") {
      if (!(outcome.reason instanceof ProviderError)) throw outcome.reason;
      unavailable = outcome.reason;
    }
  });
  if (Object.keys(result).length > 0) return result;
  if (unavailable) throw problems.providerUnavailable("the provider could not refresh the token; try again later");
  throw noToken();
}

const noToken = () => problems.unknownFederatedToken();

function view(deps: FedTokenDeps, record: StoredTokens): FederatedTokenView {
  return { expiresOn: record.expiresOn, token: openAccessToken(deps.tokenKey, record) };
}

const lastsLongEnough = (deps: FedTokenDeps, record: StoredTokens) =>
  record.expiresOn - deps.now() > deps.minLifetimeSeconds;

async function usable(deps: FedTokenDeps, record: StoredTokens): Promise<FederatedTokenView | undefined> {
  if (lastsLongEnough(deps, record)) return view(deps, record);
  if (record.refreshToken === undefined) return undefined;
  return refreshed(deps, record, true);
}

async function refreshed(
  deps: FedTokenDeps,
  record: StoredTokens,
  mayWait: boolean,
): Promise<FederatedTokenView | undefined> {
  const leaseId = randomUUID();
  const now = deps.now();
  if (!(await deps.federation.takeRefreshLease(record, leaseId, now + REFRESH_LEASE_SECONDS, now))) {
    return mayWait ? resultOfOtherRefresh(deps, record) : undefined;
  }
  const refreshToken = openRefreshToken(deps.tokenKey, record) as string;
  let tokens: Awaited<ReturnType<typeof refreshTokens>>;
  try {
    tokens = await refreshTokens(deps.provider, refreshToken);
  } catch (error) {
    if (error instanceof ProviderError && error.kind === "refused") {
      // invalid_grant and its kin: this refresh token will never work again.
      deps.log("stored external token dropped: refresh refused", { code: error.code, fpType: record.fpType });
      await deps.federation.dropTokens(record, leaseId);
      return undefined;
    }
    await deps.federation.releaseLease(record, leaseId);
    throw error;
  }
  const sealed = sealProviderTokens(deps.tokenKey, record, tokens, deps.now());
  if (await deps.federation.saveRefreshed(record, leaseId, sealed, deps.now())) {
    return { expiresOn: sealed.expiresOn, token: tokens.accessToken };
  }
  // A new bind replaced the tokens while we refreshed: those win.
  const latest = await deps.federation.tokensOf(record);
  return latest && lastsLongEnough(deps, latest) ? view(deps, latest) : undefined;
}

/** Another caller holds the lease: its result is ours once the revision changes. */
async function resultOfOtherRefresh(deps: FedTokenDeps, seen: StoredTokens): Promise<FederatedTokenView | undefined> {
  for (const ms of WAIT_STEPS_MS) {
    await deps.sleep(ms);
    const latest = await deps.federation.tokensOf(seen);
    // Gone: the provider refused the refresh and the holder dropped the tokens.
    if (!latest) return undefined;
    // A freshly refreshed token is returned even if the provider made it short-lived.
    if (latest.revision !== seen.revision) return latest.expiresOn > deps.now() ? view(deps, latest) : undefined;
    // The holder gave the lease back: the provider could not be reached just now, and
    // asking it again at once would only double the wait.
    if (latest.leaseUntil === undefined) throw new ProviderError("unavailable", "refresh_failed_elsewhere");
    // The holder died with the lease: one attempt of our own.
    if (latest.leaseUntil < deps.now()) return refreshed(deps, latest, false);
  }
  throw new ProviderError("unavailable", "refresh_in_progress");
}
