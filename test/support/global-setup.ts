import type { TestProject } from "vitest/node";
import { freePort, type RunningDynamo, startDynamoLocal } from "../../lib/local/dynamodb-local";

/** One real DynamoDB Local (in memory) for the whole suite, on a free port. */

let dynamo: RunningDynamo | undefined;

export async function setup(project: TestProject): Promise<void> {
  const port = await freePort();
  dynamo = await startDynamoLocal({ port });
  project.provide("dynamodbPort", port);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    dynamodbPort: number;
  }
}
