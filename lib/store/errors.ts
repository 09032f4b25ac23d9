import { StorageUnavailableError } from "../domain/errors";

/**
 * Translation of DynamoDB failures into what the domain understands. Conditions are
 * how we keep invariants, so a failed condition is information, not a crash.
 */

interface CancellationReason {
  Code?: string;
}

export function isConditionalCheckFailed(error: unknown): boolean {
  return (error as { name?: string })?.name === "ConditionalCheckFailedException";
}

/** For a cancelled transaction, which of its items failed their condition (by index). */
export function failedConditions(error: unknown): number[] | undefined {
  if ((error as { name?: string })?.name !== "TransactionCanceledException") return undefined;
  const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  return reasons.flatMap((reason, index) => (reason.Code === "ConditionalCheckFailed" ? [index] : []));
}

export function isTransactionConflict(error: unknown): boolean {
  if ((error as { name?: string })?.name !== "TransactionCanceledException") return false;
  const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ?? [];
  // Only a clash with another transaction in flight: a failed condition is an answer, not a race.
  return (
    reasons.some((r) => r.Code === "TransactionConflict") && !reasons.some((r) => r.Code === "ConditionalCheckFailed")
  );
}

const UNAVAILABLE_NAMES = new Set([
  "TimeoutError",
  "RequestTimeout",
  "RequestTimeoutException",
  "ServiceUnavailable",
  "InternalServerError",
  "ThrottlingException",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
]);
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH"]);

/** True when storage could not be reached or refused for load: a 503, not a 500. */
function isStorageUnavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; cause?: { code?: string }; $metadata?: unknown };
  if (!e || typeof e !== "object") return false;
  if (e.name && UNAVAILABLE_NAMES.has(e.name)) return true;
  // Still clashing with other writers after every retry: busy, worth trying again.
  if (isTransactionConflict(error)) return true;
  if (e.code && UNAVAILABLE_CODES.has(e.code)) return true;
  if (e.cause?.code && UNAVAILABLE_CODES.has(e.cause.code)) return true;
  // AggregateError from Node's happy-eyeballs connect carries the codes of its attempts.
  const nested = (error as { errors?: unknown[] }).errors;
  return Array.isArray(nested) && nested.some(isStorageUnavailable);
}

/**
 * The error a store call ends with: the domain's StorageUnavailableError when DynamoDB
 * could not serve it. `keepConflicts`: transactWrite retries a raw transaction conflict
 * itself (and translates it when its retries are spent).
 */
export function storageError(error: unknown, keepConflicts = false): unknown {
  if (error instanceof StorageUnavailableError || !isStorageUnavailable(error)) return error;
  if (keepConflicts && isTransactionConflict(error)) return error;
  return new StorageUnavailableError(error);
}

/** Still clashing with other writers after transactWrite's retries. */
export function isConflictAfterRetries(error: unknown): boolean {
  return error instanceof StorageUnavailableError && isTransactionConflict(error.cause);
}
