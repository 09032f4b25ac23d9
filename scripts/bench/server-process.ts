import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * One HTTP server under load, in a process of its own, so autocannon (in the bench's
 * process) and the server never share an event loop. Started by `startServerProcess`
 * with the bench's environment; sends `{ ready: <port> }` and answers `count` messages with
 * the DynamoDB calls it has sent and the CPU it has used.
 */

export type ServerKind = "gateway" | "getitem-floor" | "session-floor" | "scrypt-floor" | "oidc-provider";

async function listenerOf(kind: ServerKind): Promise<{ server: Server; calls: () => number }> {
  const { roundTripCount } = await import("../../lib/store/client");
  if (kind === "oidc-provider") {
    const { oidcReferenceServer } = await import("./oidc-reference");
    const { freePort } = await import("../../lib/local/dynamodb-local");
    const server = oidcReferenceServer(await freePort());
    await new Promise((done) => server.once("listening", done));
    return { server, calls: () => 0 };
  }
  if (kind === "gateway") {
    const { createGateway } = await import("../../lib/local/gateway");
    return { server: createGateway(), calls: roundTripCount };
  }
  if (kind === "getitem-floor") {
    const { getItemListener } = await import("./floors");
    return { server: createServer(await getItemListener()), calls: roundTripCount };
  }
  if (kind === "session-floor") {
    // The user token's session, named by the bench that minted it.
    const { sessionCheckListener } = await import("./floors");
    const [sub, sid] = process.argv.slice(3);
    return { server: createServer(sessionCheckListener(sub, sid)), calls: roundTripCount };
  }
  const { scryptListener } = await import("./floors");
  return { server: createServer(scryptListener() as RequestListener), calls: roundTripCount };
}

const kind = process.argv[2] as ServerKind;
const { server, calls } = await listenerOf(kind);
server.keepAliveTimeout = 30_000;
// Over IPC: stdout is the server's log file, as on Lambda.
const announce = () => process.send?.({ ready: (server.address() as AddressInfo).port });
// node-oidc-provider listens on its own, on the port its issuer names.
if (server.listening) announce();
else server.listen(0, "127.0.0.1", announce);
process.on("message", (message) => {
  if (message !== "count") return;
  // Work of this process only (libuv's pool included): DynamoDB Local's share is left out.
  const cpu = process.cpuUsage();
  process.send?.({ calls: calls(), cpuMs: (cpu.user + cpu.system) / 1000 });
});
process.on("disconnect", () => process.exit(0));
process.on("SIGTERM", () => process.exit(0));
