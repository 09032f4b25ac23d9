import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/**
 * DynamoDB applies a write but its answer never arrives: an SDK middleware lets the call
 * through, then throws a timeout in its place. `inside` sits below the SDK's retries
 * (the SDK sends the same request again, as after a real socket timeout); `outside`
 * above them (the error reaches our code, as when the retries are spent, and the
 * caller has to send the whole HTTP request again).
 */
export function loseAnswers(client: DynamoDBDocumentClient, layer: "inside" | "outside") {
  const armed = new Map<string, number>();
  let lost = 0;
  const name = `loseAnswers-${layer}`;
  const afterCall = <R>(result: R, commandName = ""): R => {
    const left = armed.get(commandName) ?? 0;
    if (left === 0) return result;
    armed.set(commandName, left - 1);
    lost += 1;
    throw Object.assign(new Error("socket timed out after the write was applied"), {
      name: "TimeoutError",
      $metadata: {},
    });
  };
  if (layer === "inside") {
    client.middlewareStack.add((next, context) => async (args) => afterCall(await next(args), context.commandName), {
      step: "deserialize",
      name,
      priority: "high",
    });
  } else {
    client.middlewareStack.add((next, context) => async (args) => afterCall(await next(args), context.commandName), {
      step: "initialize",
      name,
    });
  }
  return {
    /** Loses the answers of the next `times` calls of this command (e.g. TransactWriteItemsCommand). */
    arm(commandName: string, times = 1): void {
      armed.set(commandName, times);
    },
    get lost(): number {
      return lost;
    },
    remove(): void {
      armed.clear();
      client.middlewareStack.remove(name);
    },
  };
}
