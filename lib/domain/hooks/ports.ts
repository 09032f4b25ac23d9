import type { AsyncHookName, HookOutput, HookRequest, SyncHookName } from "./contracts";

/** Why a synchronous hook gave no usable answer. */
export type HookFailure = "failed" | "timeout" | "malformed";

/** A synchronous hook failed: the flow that asked stops (fails closed) and stores nothing. */
export class HookFailedError extends Error {
  constructor(
    readonly hook: SyncHookName,
    readonly why: HookFailure,
  ) {
    super(
      `the ${hook} hook ${why === "timeout" ? "timed out" : why === "malformed" ? "answered outside its contract" : "failed"}`,
    );
    this.name = "HookFailedError";
  }
}

/** Runs the configured hooks (docs/hooks.md); the adapters behind it are the wiring's business. */
export interface HookRunner {
  configured(hook: SyncHookName | AsyncHookName): boolean;
  /** The hook's validated answer; undefined when the hook is not configured. Throws HookFailedError. */
  call<N extends SyncHookName>(hook: N, request: HookRequest<N>): Promise<HookOutput<N> | undefined>;
  /**
   * Hands an event to an asynchronous hook and resolves once it is handed off (never rejects):
   * retries happen behind it, and a failure never undoes what the event reports.
   */
  notify<N extends AsyncHookName>(hook: N, request: HookRequest<N>): Promise<void>;
}

/** No hook configured: every call answers undefined. */
export const noHooks: HookRunner = {
  configured: () => false,
  async call() {
    return undefined;
  },
  async notify() {},
};
