import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

/** Debian's chromium (`.ci/run` installs it); CHROMIUM_PATH names another. Missing is a failure, not a skip. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** One headless chromium for the calling test file. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM_PATH))
      throw new Error(`chromium not found at ${CHROMIUM_PATH}: apt-get install chromium (or set CHROMIUM_PATH)`);
    // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox"] });
  });
  afterAll(async () => browser?.close());
  return () => browser as Browser;
}

/** A relying party's callback: answers a small page and remembers every URL it was sent to. */
export function useCallbackServer(): { url: () => string; hits: string[] } {
  const hits: string[] = [];
  let server: Server | undefined;
  let base = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(new URL(req.url ?? "/", base).toString());
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>back at the application</title><p>back</p>");
    });
    await new Promise<void>((done) => server?.listen(0, "127.0.0.1", () => done()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());
  return { url: () => base, hits };
}
