import { config } from "../lib/config";
import { services } from "../lib/container";
import { lockInactiveAccounts } from "../lib/domain/security/account-state";
import { log } from "../lib/log";
import { gsi1 } from "../lib/store/keys";
import { rotateOnSchedule } from "../lib/tokens/rotation";

type JobResult =
  | { job: "inactivity-lock"; examined: number; locked: number }
  | { job: "key-rotation"; keys: { alg: string; kid: string; activatesAt: number }[]; retired: string[] };

/**
 * Scheduled jobs (EventBridge; also `npm run invoke -- jobs events/jobs/inactivity-lock.json`).
 * The inactivity lock (daily) reads only the inactivity index, never the whole table. The
 * key rotation (every tokens.keyRotationDays) publishes the next signing key, which signs
 * once every cache has it (lib/tokens/rotation.ts).
 */
export async function handler(event: { job?: string } = {}): Promise<JobResult> {
  const job = event.job ?? "inactivity-lock";
  const now = Math.floor(Date.now() / 1000);
  if (job === "key-rotation") {
    const rotation = await rotateOnSchedule(services().signingKeys, config().settings.tokens.accessTtlSeconds, now);
    if (!rotation) log.info("key rotation skipped: a published key has not started signing yet");
    else log.info("key rotation done", { ...rotation });
    return rotation ? { job, keys: rotation.keys, retired: rotation.retired } : { job, keys: [], retired: [] };
  }
  if (job !== "inactivity-lock") throw new Error(`unknown job ${job}`);
  const result = await lockInactiveAccounts(
    services().accountSecurity,
    services().sessions,
    config().settings.inactivity.lockAfterDays,
    gsi1.inactivityShards,
    now,
  );
  log.info("inactivity lock done", result);
  return { job, ...result };
}
