import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { setEnvDefaults } from "../../lib/config";
import { freePort } from "../../lib/local/dynamodb-local";
import { createGateway, type GatewayOptions } from "../../lib/local/gateway";

/** Serves the local gateway on a free port for the calling test file; returns its base URL. */
export function useGateway(options: GatewayOptions = {}): () => string {
  const gateway = createGateway(options);
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((done) => gateway.listen(0, "127.0.0.1", () => done()));
    base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  afterAll(() => gateway.close());
  return () => base;
}

/**
 * The local gateway as an OpenID provider: the issuer names the gateway's own port, so it
 * is chosen and set before the file's first token or discovery document is made. Passkey
 * tests name it `localhost`: browsers refuse an IP address as WebAuthn RP ID.
 */
export async function useIssuerGateway(
  host: "127.0.0.1" | "localhost" = "127.0.0.1",
): Promise<{ base: string; issuer: string }> {
  const port = await freePort();
  const base = `http://${host}:${port}`;
  const issuer = `${base}/svc`;
  process.env.SVC_ISSUER = issuer;
  setEnvDefaults({});
  const gateway = createGateway();
  beforeAll(() => new Promise<void>((done) => gateway.listen(port, "127.0.0.1", () => done())));
  afterAll(() => gateway.close());
  return { base, issuer };
}
