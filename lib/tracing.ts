import type { Tracer } from "@aws-lambda-powertools/tracer";
import { tracingInProcess } from "./config";

/**
 * X-Ray subsegments for AWS SDK calls and hook calls (docs/operations.md, Tracing). Only
 * names, operations and timings are recorded: no request or response body, no error text.
 *
 * The tracer is loaded only where it may trace (on Lambda): the X-Ray SDK turns on an async
 * hook for every promise of the process as it loads, a cost nothing local should pay.
 */
const tracer: Tracer | undefined = tracingInProcess()
  ? new (await import("@aws-lambda-powertools/tracer")).Tracer({
      serviceName: "svc-identity",
      // Plain HTTP calls are not traced: a hook URL or the breached-password range would reach the trace.
      captureHTTPsRequests: false,
    })
  : undefined;

/** The same client, its calls recorded as subsegments (service, operation, table, status). */
export function traced<C>(client: C): C {
  return tracer?.isTracingEnabled() ? tracer.captureAWSv3Client(client) : client;
}

/**
 * Runs `work` in a subsegment of its own. A failure only flags it: the error's text may echo
 * what the work was given (a userMigration hook's password).
 */
export function inSubsegment<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!tracer?.isTracingEnabled()) return work();
  return tracer.provider.captureAsyncFunc(name, async (subsegment) => {
    try {
      return await work();
    } catch (error) {
      subsegment?.addErrorFlag();
      throw error;
    } finally {
      subsegment?.close();
    }
  }) as Promise<T>;
}
