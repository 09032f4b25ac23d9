import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GetCommand } from "@aws-sdk/lib-dynamodb";
import autocannon from "autocannon";
import { config } from "../../lib/config";
import { createDocumentClient, roundTripCount } from "../../lib/store/client";
import { keys } from "../../lib/store/keys";

/** Requests per second and latency of one scenario, measured with autocannon on loopback or a stage. */

export interface Scenario {
  name: string;
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  ok: number;
  failed: number;
  /** DynamoDB calls this process sent per answered request (local stack only: checks nothing is cached). */
  dynamoCallsPerRequest: number;
}

export interface LoadSettings {
  connections: number;
  seconds: number;
}

export async function measure(scenario: Scenario, load: LoadSettings): Promise<Measured> {
  const callsBefore = roundTripCount();
  const result = await autocannon({
    url: scenario.url,
    method: scenario.method,
    headers: scenario.headers,
    body: scenario.body,
    connections: load.connections,
    duration: load.seconds,
    // Bounded in count as well as in time.
    maxOverallRequests: 200_000,
    timeout: 10,
  });
  return {
    name: scenario.name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    failed: result.non2xx + result.errors + result.timeouts,
    dynamoCallsPerRequest: (roundTripCount() - callsBefore) / Math.max(1, result.requests.total),
  };
}

/**
 * The floor: an HTTP server that does exactly one consistent GetItem of a profile per
 * request, with the same client settings as the service. Nothing the service does per
 * request can be faster than this on the same DynamoDB Local.
 */
export async function startGetItemServer(sub: string): Promise<{ url: string; server: Server }> {
  const client = createDocumentClient({ endpoint: config().dynamodbEndpoint, region: config().region });
  const server = createServer((_req, res) => {
    client
      .send(new GetCommand({ TableName: config().tableName, Key: keys.userProfile(sub), ConsistentRead: true }))
      .then((out) => {
        res.writeHead(out.Item ? 200 : 404, { "content-type": "application/json" });
        res.end(JSON.stringify({ found: Boolean(out.Item) }));
      })
      .catch(() => {
        res.writeHead(503);
        res.end();
      });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

export function throughputTable(rows: Measured[], floor: Measured): string[][] {
  return [
    ["scenario", "req/s", "p50 ms", "p99 ms", "2xx", "failed", "DynamoDB calls/req", "vs GetItem req/s"],
    ...[...rows, floor].map((row) => [
      row.name,
      row.requestsPerSecond.toFixed(0),
      String(row.p50),
      String(row.p99),
      String(row.ok),
      String(row.failed),
      row.dynamoCallsPerRequest.toFixed(2),
      row === floor ? "1.00" : (row.requestsPerSecond / floor.requestsPerSecond).toFixed(2),
    ]),
  ];
}
