import { config } from "../lib/config";
import { accountDeletionDeps, organizationDomains, services, txtLookup } from "../lib/container";
import { deleteDueAccounts } from "../lib/domain/accounts/deletion";
import { recheckVerifiedDomains } from "../lib/domain/organizations/domains";
import { lockInactiveAccounts } from "../lib/domain/security/account-state";
import { log } from "../lib/log";
import { gsi1 } from "../lib/store/keys";
import { rotateOnSchedule } from "../lib/tokens/rotation";

type Inactivity = { examined: number; locked: number };
type Deletions = { examined: number; deleted: number; cancelled: number };
type DomainChecks = { examined: number; unverified: number; unavailable: number };

type JobResult =
  | ({ job: "inactivity-lock" } & Inactivity)
  | ({ job: "account-deletion" } & Deletions)
  | ({ job: "domain-recheck" } & DomainChecks)
  | { job: "daily"; inactivity: Inactivity; deletion: Deletions; domains: DomainChecks }
  | { job: "key-rotation"; keys: { alg: string; kid: string; activatesAt: number }[]; retired: string[] };

/**
 * Scheduled jobs (EventBridge; also `npm run invoke -- jobs events/jobs/<job>.json`). The
 * daily schedule names no job and runs both daily ones: the inactivity lock, which reads
 * only the inactivity index, never the whole table, and the account deletions whose grace
 * period ended (docs/account/data.md), read from their own index, and a page of verified
 * domains whose TXT records are checked again (docs/organizations.md#verified-domains). The key rotation (every
 * tokens.keyRotationDays) publishes the next signing key, which signs once every cache has
 * it (lib/tokens/rotation.ts).
 */
export async function handler(event: { job?: string } = {}): Promise<JobResult> {
  const job = event.job ?? "daily";
  const now = Math.floor(Date.now() / 1000);
  if (job === "key-rotation") {
    const rotation = await rotateOnSchedule(services().signingKeys, config().settings.tokens.accessTtlSeconds, now);
    if (!rotation) log.info("key rotation skipped: a published key has not started signing yet");
    else log.info("key rotation done", { ...rotation });
    return rotation ? { job, keys: rotation.keys, retired: rotation.retired } : { job, keys: [], retired: [] };
  }
  if (job === "inactivity-lock") return { job, ...(await inactivityLock(now)) };
  if (job === "account-deletion") return { job, ...(await accountDeletions(now)) };
  if (job === "domain-recheck") return { job, ...(await domainChecks(now)) };
  if (job !== "daily") throw new Error(`unknown job ${job}`);
  return {
    job,
    inactivity: await inactivityLock(now),
    deletion: await accountDeletions(now),
    domains: await domainChecks(now),
  };
}

async function inactivityLock(now: number): Promise<Inactivity> {
  const result = await lockInactiveAccounts(
    services().accountSecurity,
    services().sessions,
    config().settings.inactivity.lockAfterDays,
    gsi1.inactivityShards,
    now,
  );
  log.info("inactivity lock done", result);
  return result;
}

async function accountDeletions(now: number): Promise<Deletions> {
  const result = await deleteDueAccounts(accountDeletionDeps(), now);
  log.info("account deletions done", result);
  return result;
}

async function domainChecks(now: number): Promise<DomainChecks> {
  const result = await recheckVerifiedDomains({ domains: organizationDomains(), dns: txtLookup() }, now);
  log.info("verified domains checked", result);
  return result;
}
