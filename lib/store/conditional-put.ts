import { PutCommand, type PutCommandInput } from "@aws-sdk/lib-dynamodb";
import type { StoreDeps } from "./client";
import { isConditionalCheckFailed } from "./errors";

/** One PutItem under its condition: false when the condition refused it, and nothing was written. */
export async function putUnlessRefused(client: StoreDeps["client"], input: PutCommandInput): Promise<boolean> {
  try {
    await client.send(new PutCommand(input));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
