import type { TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import type { PendingWrite, Prefetch } from "../domain/unit-of-work";
import type { BatchPrefetch } from "./batch";

/**
 * The domain carries transaction items and read plans without seeing inside; these
 * casts are the only place where the two views meet.
 */

export type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

export const pendingWrite = (item: TransactItem): PendingWrite => item as unknown as PendingWrite;

export const transactItems = (writes: readonly PendingWrite[]): TransactItem[] => writes as unknown as TransactItem[];

export const prefetchOf = <T>(plan: BatchPrefetch<T>): Prefetch<T> => plan as unknown as Prefetch<T>;

export const batchPrefetch = <T>(plan: Prefetch<T>): BatchPrefetch<T> => plan as unknown as BatchPrefetch<T>;
