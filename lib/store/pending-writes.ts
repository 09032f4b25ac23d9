import type { TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import type { PendingWrite, ReadPlan } from "../domain/unit-of-work";
import type { BatchReadPlan } from "./batch";

/**
 * The domain carries transaction items and read plans without seeing inside; these
 * casts are the only place where the two views meet.
 */

export type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

export const pendingWrite = (item: TransactItem): PendingWrite => item as unknown as PendingWrite;

export const transactItems = (writes: readonly PendingWrite[]): TransactItem[] => writes as unknown as TransactItem[];

export const readPlan = <T>(plan: BatchReadPlan<T>): ReadPlan<T> => plan as unknown as ReadPlan<T>;

export const batchReadPlan = <T>(plan: ReadPlan<T>): BatchReadPlan<T> => plan as unknown as BatchReadPlan<T>;
