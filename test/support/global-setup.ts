import { createServer } from "node:net";
import type { TestProject } from "vitest/node";
import { type RunningDynamo, startDynamoLocal } from "../../lib/local/dynamodb-local";

/** One real DynamoDB Local (in memory) for the whole suite, on a free port. */

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

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
