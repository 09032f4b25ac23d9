/**
 * Counts what the domain decides (sign-ins by method and result, refusals), so operators can
 * alarm on them. Dimensions carry no secret: methods, results, grants and client ids only.
 */
export interface MetricsPort {
  count(name: string, dims?: Record<string, string>): void;
}

/** For callers and tests that do not look at metrics. */
export const noMetrics: MetricsPort = { count: () => {} };
