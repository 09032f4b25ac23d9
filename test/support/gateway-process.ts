import type { AddressInfo } from "node:net";
import { ensureBootstrapClient } from "../../lib/local/bootstrap";
import { createGateway } from "../../lib/local/gateway";
import { prepareTable } from "../../lib/local/stack";

/**
 * A gateway in a process of its own, on the DynamoDB Local that DYNAMODB_PORT names, for
 * tests that stop that DynamoDB under it. Prints `ready <port>` once it listens.
 */
await prepareTable(`http://127.0.0.1:${process.env.DYNAMODB_PORT}`, { stream: false });
await ensureBootstrapClient(undefined);
const gateway = createGateway();
gateway.listen(0, "127.0.0.1", () => {
  console.log(`ready ${(gateway.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => process.exit(0));
