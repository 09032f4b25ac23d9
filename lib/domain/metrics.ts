/** The counts the service keeps (docs/operations.md lists their dimensions and alarms). */
export type CountName =
  | "SignIn"
  | "SignInFailed"
  | "SignInThrottled"
  | "TokensIssued"
  | "Registration"
  | "MessageSent"
  | "MessageSendFailed"
  | "HookFailed";

/**
 * Counts what the domain decides (sign-ins by method and result, refusals), so operators can
 * alarm on them. Dimensions carry no secret: methods, results, grants, channels and names only.
 */
export interface MetricsPort {
  count(name: CountName, dims?: Record<string, string>): void;
}

/** For callers and tests that do not look at metrics. */
export const noMetrics: MetricsPort = { count: () => {} };
