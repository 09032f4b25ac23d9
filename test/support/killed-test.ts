import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { startDynamoLocal } from "../../lib/local/dynamodb-local";
import { startProcess } from "./processes";

/**
 * What a test worker holds when it is killed: a DynamoDB Local of its own (as the global
 * setup starts) and an `npm start` (as the start tests run). Prints `ready <start pid>`.
 * Args: DynamoDB Local port, npm start's DynamoDB port, npm start's port.
 */
const [dynamodbPort, startDynamodbPort, port] = process.argv.slice(2).map(Number);
await startDynamoLocal({ port: dynamodbPort });
const repo = resolve(".");
const child = startProcess(
  process.execPath,
  [
    "--import",
    pathToFileURL(join(repo, "node_modules/tsx/dist/loader.mjs")).href,
    "--import",
    pathToFileURL(join(repo, "scripts/loaders/text.mjs")).href,
    join(repo, "lib/local/start.ts"),
  ],
  {
    env: { ...process.env, SVC_IN_MEMORY: "1", PORT: String(port), DYNAMODB_PORT: String(startDynamodbPort) },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
let output = "";
child.stdout?.on("data", (chunk) => {
  output += chunk;
  if (output.includes("svc ready at")) {
    console.log(`ready ${child.pid}`);
    output = "";
  }
});
