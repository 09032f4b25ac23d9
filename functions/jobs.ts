import { config } from "../lib/config";
import { services } from "../lib/container";
import { lockInactiveAccounts } from "../lib/domain/security/account-state";
import { log } from "../lib/log";
import { gsi1 } from "../lib/store/keys";

/**
 * Scheduled jobs (EventBridge, daily; also `npm run invoke -- jobs events/jobs/inactivity-lock.json`).
 * The inactivity lock reads only the inactivity index, never the whole table.
 */
export async function handler(
  event: { job?: string } = {},
): Promise<{ job: string; examined: number; locked: number }> {
  const job = event.job ?? "inactivity-lock";
  if (job !== "inactivity-lock") throw new Error(`unknown job ${job}`);
  const result = await lockInactiveAccounts(
    services().accountSecurity,
    config().settings.inactivity.lockAfterDays,
    gsi1.inactivityShards,
    Math.floor(Date.now() / 1000),
  );
  log.info("inactivity lock done", result);
  return { job, ...result };
}
