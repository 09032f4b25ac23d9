/**
 * Writes and reads that span several repositories, kept opaque: the domain gathers them
 * from repositories and hands them back to one, which alone knows what they hold.
 */

declare const pendingWrite: unique symbol;
declare const prefetched: unique symbol;

/** One write a repository prepared for a commit that spans several items (all or none). */
export interface PendingWrite {
  readonly [pendingWrite]: never;
}

/**
 * A read a repository prepared so that it rides in another repository's read (one round
 * trip instead of two); the answer comes back as `T`. `keys` tells it from other plans.
 */
export interface Prefetch<T> {
  readonly keys: readonly unknown[];
  readonly [prefetched]: T;
}

/** Commits pending writes together, all or none. */
export interface UnitOfWork {
  /** False when a guard refused them: nothing was written. */
  commit(writes: PendingWrite[]): Promise<boolean>;
}
