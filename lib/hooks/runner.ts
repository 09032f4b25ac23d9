import { hookValidators } from "../compiled/hook-validators";
import type { HookSettings, HookTarget, ServiceSettings } from "../config/settings";
import {
  type AsyncHookName,
  HOOK_CONTRACT_VERSION,
  type HookName,
  type HookOutput,
  type HookRequest,
  type SyncHookName,
} from "../domain/hooks/contracts";
import { HookFailedError, type HookFailure, type HookRunner } from "../domain/hooks/ports";
import { type MetricsPort, noMetrics } from "../domain/metrics";
import { inSubsegment } from "../tracing";
import { type HookTransport, untilAborted } from "./transport";

export type HookLog = (message: string, fields: Record<string, unknown>) => void;

/** Local asynchronous hooks: tries and the first wait; each wait doubles. */
export const LOCAL_RETRY = { attempts: 3, firstDelayMs: 200 };

/**
 * Runs the configured hooks (docs/hooks.md): checks what goes out and what comes back
 * against the contract, gives each call its time limit, and turns every failure into
 * HookFailedError, so the flow that asked fails closed. Inputs are never logged: the
 * userMigration input carries a password.
 */
export function createHookRunner(
  hooks: ServiceSettings["hooks"],
  transportFor: (target: HookTarget) => HookTransport,
  log: HookLog,
  retry = LOCAL_RETRY,
  metrics: MetricsPort = noMetrics,
): HookRunner {
  const transports = new Map<HookName, HookTransport>();
  const transport = (hook: HookName, settings: HookSettings) => {
    let found = transports.get(hook);
    if (!found) {
      found = transportFor(settings.target);
      transports.set(hook, found);
    }
    return found;
  };
  const envelope = (hook: HookName, request: object) => {
    const input = { version: HOOK_CONTRACT_VERSION, hook, ...request };
    // Our own input breaking the contract is our bug; the hook is not asked with it.
    if (!hookValidators[hook].input(input))
      throw new Error(`the ${hook} input breaks its contract: ${problemsOf(hook, "input")}`);
    return input;
  };
  const failed = (hook: SyncHookName, why: HookFailure, cause: unknown): HookFailedError => {
    log(`${hook} hook failed`, { hook, why, cause: describe(hook, cause) });
    metrics.count("HookFailed", { hook, why });
    return new HookFailedError(hook, why);
  };

  return {
    configured: (hook) => hooks[hook] !== undefined,

    async call<N extends SyncHookName>(hook: N, request: HookRequest<N>): Promise<HookOutput<N> | undefined> {
      const settings = hooks[hook];
      if (!settings) return undefined;
      const input = envelope(hook, request);
      const signal = AbortSignal.timeout(settings.timeoutMs);
      let answer: unknown;
      try {
        // Raced as well: a target that ignores the signal still cannot hold the flow past its limit.
        answer = await inSubsegment(`## hook ${hook}`, () =>
          untilAborted(transport(hook, settings).request(input, signal), signal),
        );
      } catch (error) {
        throw failed(hook, signal.aborted ? "timeout" : "failed", error);
      }
      if (!hookValidators[hook].output(answer)) throw failed(hook, "malformed", problemsOf(hook, "output"));
      return answer as HookOutput<N>;
    },

    async notify<N extends AsyncHookName>(hook: N, request: HookRequest<N>): Promise<void> {
      const settings = hooks[hook];
      if (!settings) return;
      const input = envelope(hook, request);
      const target = transport(hook, settings);
      const attempt = () => {
        const signal = AbortSignal.timeout(settings.timeoutMs);
        return inSubsegment(`## hook ${hook}`, () => untilAborted(target.dispatch(input, signal), signal));
      };
      const report = (error: unknown, tries: number) => {
        log(`${hook} hook failed`, { hook, tries, cause: describe(hook, error) });
        // AbortSignal.timeout rejects with a TimeoutError: the last try ran out of time.
        const why = error instanceof Error && error.name === "TimeoutError" ? "timeout" : "failed";
        metrics.count("HookFailed", { hook, why });
      };
      if (target.retriesItself) {
        // Lambda keeps and retries the event once it has it; only the hand-off is waited for.
        await attempt().catch((error) => report(error, 1));
        return;
      }
      // Not waited for: the answer goes out while the hook runs and is retried.
      void (async () => {
        for (let tries = 1; ; tries++) {
          try {
            await attempt();
            return;
          } catch (error) {
            if (tries >= retry.attempts) return report(error, tries);
            await new Promise((resolve) => setTimeout(resolve, retry.firstDelayMs * 2 ** (tries - 1)));
          }
        }
      })();
    },
  };
}

/** The contract's complaints: paths and rules, never the values (they may be a user's data). */
function problemsOf(hook: HookName, part: "input" | "output"): string {
  return (hookValidators[hook][part].errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || "/"} ${e.message}`)
    .join("; ");
}

/** What is logged of a failure: a userMigration error may echo its input (a password), so only its kind. */
function describe(hook: HookName, cause: unknown): string {
  if (typeof cause === "string") return cause;
  if (!(cause instanceof Error)) return "the hook threw a non-error value";
  if (hook === "userMigration") return cause.name;
  return `${cause.name}: ${cause.message.slice(0, 200)}`;
}
