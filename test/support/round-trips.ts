import { roundTripCount, roundTripKinds } from "../../lib/store/client";

/** DynamoDB calls a block of work sent: all of them, and by kind (reads, writes). */
export async function spentBy<T>(
  work: () => Promise<T>,
): Promise<{ result: T; total: number; reads: number; writes: number }> {
  const total = roundTripCount();
  const kinds = roundTripKinds();
  const result = await work();
  const after = roundTripKinds();
  return {
    result,
    total: roundTripCount() - total,
    reads: after.reads - kinds.reads,
    writes: after.writes - kinds.writes,
  };
}
