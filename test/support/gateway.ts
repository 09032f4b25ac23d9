import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { createGateway } from "../../lib/local/gateway";

/** Serves the local gateway on a free port for the calling test file; returns its base URL. */
export function useGateway(): () => string {
  const gateway = createGateway();
  let base = "";
  beforeAll(async () => {
    await new Promise<void>((done) => gateway.listen(0, "127.0.0.1", () => done()));
    base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  afterAll(() => gateway.close());
  return () => base;
}
