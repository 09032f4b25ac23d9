import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { routeKey } from "../../lib/http/route";
import { prepareEvent } from "../../lib/local/events";
import { ROUND_TRIPS_HEADER } from "../../lib/local/gateway";
import { routes } from "../../lib/routes";

/**
 * DynamoDB round trips per request for every route of the table. Each route is called
 * through the counting gateway with its documented sample events (events/<fn>/, one per
 * route at least, enforced by the routes test), filled with the bench's seeded data;
 * a route none of whose samples can be filled or answers 2xx is reported as such.
 */

export type Mode = "system" | "user" | "basic" | "none";

export interface RoundTripRow {
  id: string;
  route: string;
  mode: Mode;
  sample: string;
  status: number | "no example";
  roundTrips?: number;
  target?: number;
}

interface Sample {
  file: string;
  event: APIGatewayProxyEventV2;
}

function samplesByRouteKey(): Map<string, Sample[]> {
  const byKey = new Map<string, Sample[]>();
  for (const dir of readdirSync("events", { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of readdirSync(join("events", dir.name))) {
      if (!name.endsWith(".json") || name.startsWith("svc-config")) continue;
      const file = join("events", dir.name, name);
      const event = JSON.parse(readFileSync(file, "utf8")) as APIGatewayProxyEventV2;
      if (!event.routeKey) continue;
      byKey.set(event.routeKey, [...(byKey.get(event.routeKey) ?? []), { file, event }]);
    }
  }
  return byKey;
}

function modeOf(event: APIGatewayProxyEventV2): Mode {
  const authorization = event.headers?.authorization ?? "";
  if (authorization.includes("{{userToken")) return "user";
  if (authorization.startsWith("Bearer")) return "system";
  if (authorization.startsWith("Basic")) return "basic";
  return "none";
}

/** DESIGN 5 targets: reads 1 (system) or 2 (user, the session check); writes 2, plus the user-mode security event. */
function targetOf(method: string, mode: Mode): number {
  const read = method === "GET";
  if (mode === "user") return read ? 2 : 3;
  return read ? 1 : 2;
}

/** Writes before reads before deletes, so reads find what writes created and deletes run last. */
const METHOD_ORDER: Record<string, number> = { PUT: 0, POST: 1, PATCH: 1, GET: 2, DELETE: 3 };

function succeeded(row: RoundTripRow | undefined): boolean {
  return row !== undefined && typeof row.status === "number" && row.status < 300;
}

async function send(base: string, event: APIGatewayProxyEventV2) {
  const url = `${base}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ""}`;
  // fetch sets host and length itself.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && name !== "host" && name !== "content-length") headers[name] = value;
  }
  const body =
    event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, "base64") : event.body;
  const response = await fetch(url, { method: event.requestContext.http.method, headers, body });
  await response.arrayBuffer();
  return { status: response.status, roundTrips: Number(response.headers.get(ROUND_TRIPS_HEADER) ?? Number.NaN) };
}

export async function measureRoundTrips(base: string, values: Record<string, string>): Promise<RoundTripRow[]> {
  const samples = samplesByRouteKey();
  const ordered = [...routes].sort((a, b) => (METHOD_ORDER[a.method] ?? 9) - (METHOD_ORDER[b.method] ?? 9));
  const rows: RoundTripRow[] = [];
  for (const route of ordered) {
    const key = routeKey(route);
    const byMode = new Map<Mode, RoundTripRow>();
    for (const sample of samples.get(key) ?? []) {
      const mode = modeOf(sample.event);
      if (succeeded(byMode.get(mode))) continue;
      let event: APIGatewayProxyEventV2;
      try {
        event = await prepareEvent(sample.event, values);
      } catch {
        if (!byMode.has(mode))
          byMode.set(mode, { id: route.id, route: key, mode, sample: sample.file, status: "no example" });
        continue;
      }
      const { status, roundTrips } = await send(base, event);
      const known = byMode.get(mode);
      if (!known || !succeeded(known)) {
        const target = targetOf(route.method, mode);
        byMode.set(mode, { id: route.id, route: key, mode, sample: sample.file, status, roundTrips, target });
      }
    }
    if (byMode.size === 0) rows.push({ id: route.id, route: key, mode: "none", sample: "-", status: "no example" });
    rows.push(...byMode.values());
  }
  return rows;
}

export function roundTripTable(rows: RoundTripRow[]): string[][] {
  return [
    ["route", "mode", "status", "round trips", "target", "", "sample"],
    ...rows.map((row) => {
      const valid = succeeded(row);
      const over = valid && row.roundTrips !== undefined && row.target !== undefined && row.roundTrips > row.target;
      return [
        row.id,
        row.mode,
        String(row.status),
        valid ? String(row.roundTrips) : row.status === "no example" ? "-" : `(${row.roundTrips} on error)`,
        row.target === undefined ? "-" : String(row.target),
        over ? "OVER" : "",
        row.sample,
      ];
    }),
  ];
}
