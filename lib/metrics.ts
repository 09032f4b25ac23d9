import { Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import { config } from "./config";
import type { MetricsPort } from "./domain/metrics";
import { logContext } from "./log";

/**
 * CloudWatch Embedded Metric Format through Powertools: one JSON line on stdout per flush,
 * which Lambda's log agent turns into metrics (namespace SvcIdentity, docs/operations.md).
 * Locally the same lines reach the console. POWERTOOLS_METRICS_DISABLED=true silences them
 * (the test suite does, as it silences logs).
 */
export const METRICS_NAMESPACE = "SvcIdentity";
export const METRICS_SERVICE = "svc-identity";

interface Built {
  disabled: boolean;
  /** The request's figures, buffered and flushed as one line per request. */
  metrics: Metrics;
  /**
   * The domain's counts, each its own line at once, by function: one instance per function
   * (one on Lambda), not a new Metrics and Console per count.
   */
  counts: Map<string, Metrics>;
}

const OPTIONS = { namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE };
let built: Built | undefined;

/** One set of instances per container; rebuilt when the configuration's switch changes, as tests flip it. */
function instances(): Built {
  const disabled = config().metricsDisabled;
  if (built && built.disabled === disabled) return built;
  built = { disabled, metrics: new Metrics(OPTIONS), counts: new Map() };
  return built;
}

function countsOf(fn: string): Metrics {
  const { counts } = instances();
  let found = counts.get(fn);
  if (!found) {
    found = new Metrics({ ...OPTIONS, singleMetric: true, defaultDimensions: { function: fn } });
    counts.set(fn, found);
  }
  return found;
}

/** Adds one request's figures to the buffer and flushes them as one EMF line. */
export function publishRequest(fn: string, route: string, statusCode: number, latencyMs: number): void {
  const { metrics } = instances();
  metrics.addDimensions({ function: fn, route });
  metrics.addMetric("Requests", MetricUnit.Count, 1);
  // 0 or 1 per request, so the average is the 5xx rate and the sum the count.
  metrics.addMetric("ServerErrors", MetricUnit.Count, statusCode >= 500 ? 1 : 0);
  metrics.addMetric("Latency", MetricUnit.Milliseconds, latencyMs);
  metrics.publishStoredMetrics();
}

/**
 * The domain's counts, each its own EMF line (a single metric), filed twice: under the function
 * serving the request alone, so an alarm can sum the functions that count it, and under the
 * function with the count's own dimensions, for the dashboard.
 */
export const powertoolsMetrics: MetricsPort = {
  count(name, dims = {}) {
    const single = countsOf(logContext()?.function ?? "unknown");
    // An empty set is the function alone (service and function, the defaults).
    if (Object.keys(dims).length > 0) single.addDimensions({}).addDimensions(dims);
    single.addMetric(name, MetricUnit.Count, 1);
  },
};
