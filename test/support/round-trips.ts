import { documentClient } from "../../lib/document-client";
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

/** The sort keys a block of work read by GetItem or BatchGetItem, per partition key. */
export async function keysReadBy<T>(work: () => Promise<T>): Promise<{ result: T; keys: Map<string, string[]> }> {
  const keys = new Map<string, string[]>();
  const name = `keysReadBy-${Math.random()}`;
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (/^(Get|BatchGet)/.test(context.commandName ?? "")) {
        // The document client's input or its marshalled form: the key strings read alike in both.
        const text = JSON.stringify(args.input);
        for (const [, pk, sk] of text.matchAll(/"PK":(?:\{"S":)?"([^"]+)"\}?,"SK":(?:\{"S":)?"([^"]+)"/g)) {
          keys.set(pk, [...(keys.get(pk) ?? []), sk]);
        }
      }
      return next(args);
    },
    { step: "initialize", name },
  );
  try {
    return { result: await work(), keys };
  } finally {
    documentClient().middlewareStack.remove(name);
  }
}
