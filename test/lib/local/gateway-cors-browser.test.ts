import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../lib/local/dynamodb-local";
import { useBrowser } from "../../support/browser";
import { createClient } from "../../support/fixtures";
import { useGateway } from "../../support/gateway";
import { basicAuthorization } from "../../support/requests";

/** A page's origin: a loopback server answering one empty page, on a port chosen before the gateway exists. */
async function pageServer(port: number): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>app</title>");
  });
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", () => done()));
  return server;
}

// Two origins differing only by port: the gateway allows the first and not the second.
const allowedPort = await freePort();
const allowed = `http://127.0.0.1:${allowedPort}`;
const gateway = useGateway({ cors: { allowedOrigins: [allowed] } });
const browser = useBrowser();
const servers: Server[] = [];
let other = "";

beforeAll(async () => {
  servers.push(await pageServer(allowedPort));
  const otherPort = await freePort();
  servers.push(await pageServer(otherPort));
  other = `http://127.0.0.1:${otherPort}`;
});
afterAll(() => {
  for (const server of servers) server.close();
});

type Outcome = { status: number; body: Record<string, unknown>; requestId: string | null } | { error: string };

/** fetch() to the token endpoint from a page on `origin`: Basic auth makes the browser preflight it. */
async function tokenFromPage(origin: string, authorization: string): Promise<Outcome> {
  const page = await browser().newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ url, authorization }) => {
        try {
          const response = await fetch(url, {
            method: "POST",
            headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
            body: "grant_type=client_credentials&scope=svc_api_sys_users",
          });
          return {
            status: response.status,
            body: (await response.json()) as Record<string, unknown>,
            requestId: response.headers.get("x-request-id"),
          };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { url: `${gateway()}/svc/oauth/te`, authorization },
    );
  } finally {
    await page.close();
  }
}

describe("CORS in a real browser against the local gateway", () => {
  it("when the page's origin is allowed, fetch() gets a token and may read the exposed request id", async () => {
    const client = await createClient();
    const outcome = await tokenFromPage(allowed, basicAuthorization(client.clientId, client.secret));
    expect(outcome).toMatchObject({ status: 200, body: { token_type: expect.any(String) } });
    expect((outcome as { requestId: string }).requestId).toMatch(/[0-9a-f-]{36}/);
  });

  it("when the page's origin is not allowed, the browser blocks the call", async () => {
    const client = await createClient();
    const outcome = await tokenFromPage(other, basicAuthorization(client.clientId, client.secret));
    expect(outcome).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
  });
});
