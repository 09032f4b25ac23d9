import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { generate } from "otplib";
import { scimStore, services } from "../../lib/container";
import { dataKeys } from "../../lib/crypto/data-key";
import { registerClient } from "../../lib/domain/clients/admin";
import { hashPassword, type PasswordHash, type ScryptParams } from "../../lib/domain/credentials/password-hash";
import { type DeviceRecord, userAgentDescriber } from "../../lib/domain/devices/device";
import { sealProviderTokens } from "../../lib/domain/federation/token-sealing";
import { type FunctionName, routeKey } from "../../lib/http/route";
import { prepareEvent } from "../../lib/local/events";
import { SAMPLE_CLIENTS, SAMPLE_RESOURCE } from "../../lib/local/sample-clients";
import { routes } from "../../lib/routes";
import { type Spent, spentFrom } from "./spent";

/**
 * DynamoDB round trips per request for every route of the table. Every sample event of
 * every route (events/<fn>/, one per route at least, enforced by the routes test) is sent
 * through the counting gateway, filled with the seeded data and with values earlier
 * answers produced: a registration's context, a contact change's state, a device id, a
 * QR code, and the one-time code a request sent (read from the outbox file). Nothing here
 * names a route: a new route is covered by its sample event.
 */

export type Mode = "system" | "user" | "basic" | "none";

export interface RoundTripRow {
  id: string;
  route: string;
  mode: Mode;
  sample: string;
  status: number | "no example";
  /** The route answered as it does when the call works: a 2xx, or its documented redirect without `error`. */
  ok?: boolean;
  roundTrips?: number;
  /** The same calls by kind (lib/store/client.ts). */
  reads?: number;
  writes?: number;
  /** Capacity units DynamoDB reported, as it bills them (scripts/bench/spent.ts). */
  rcu?: number;
  wcu?: number;
  /** The handler's time in this one run, ms. */
  handlerMs?: number;
  target?: Target;
  /**
   * User mode only (interface §6): where the call's security event is written, counted in
   * roundTrips either way: its own PutItem by the middleware, or inside the route's write.
   */
  event?: "own write" | "in the route's write";
}

type Route = (typeof routes)[number];

interface Sample {
  file: string;
  fn: FunctionName;
  event: APIGatewayProxyEventV2;
}

function samplesByRouteKey(): Map<string, Sample[]> {
  const byKey = new Map<string, Sample[]>();
  for (const dir of readdirSync("events", { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const name of readdirSync(join("events", dir.name)).sort()) {
      if (!name.endsWith(".json") || name.startsWith("svc-config")) continue;
      const file = join("events", dir.name, name);
      const event = JSON.parse(readFileSync(file, "utf8")) as APIGatewayProxyEventV2;
      if (!event.routeKey) continue;
      const sample = { file, fn: dir.name as FunctionName, event };
      byKey.set(event.routeKey, [...(byKey.get(event.routeKey) ?? []), sample]);
    }
  }
  return byKey;
}

/**
 * Who calls: a user token, a browser session, or HTTP Basic with a user's own password (where
 * the route takes one: the password check stands in for the session check), is user mode.
 */
function modeOf(event: APIGatewayProxyEventV2, route: Route): Mode {
  const authorization = event.headers?.authorization ?? "";
  if (authorization.includes("{{userToken")) return "user";
  if (authorization.startsWith("Basic") && route.auth === "user-bearer-or-user-basic") return "user";
  if (authorization.startsWith("Bearer")) return "system";
  if (authorization.startsWith("Basic")) return "basic";
  // The account console's browser session: its check is the user's session check.
  if (event.cookies?.some((cookie) => cookie.includes("{{browserSession"))) return "user";
  return "none";
}

/** Most DynamoDB calls of each kind a request may cost. */
export interface Target {
  reads: number;
  writes: number;
}

/**
 * Issue 8's targets: reads at most 1 in system mode and 2 in user mode (the session
 * check); writes at most 2. The user-mode security event (interface §6) rides in the route's
 * own write wherever it writes anyway (`event` says where it went), so on a read-only
 * route it is the one write.
 */
export function targetOf(mode: Mode): Target {
  return { reads: mode === "user" ? 2 : 1, writes: 2 };
}

/** A 2xx figure beyond its target, and how. */
export function overBy(row: RoundTripRow): string[] {
  if (!succeeded(row) || !row.target) return [];
  return [
    ...((row.reads ?? 0) > row.target.reads ? [`reads ${row.reads} > ${row.target.reads}`] : []),
    ...((row.writes ?? 0) > row.target.writes ? [`writes ${row.writes} > ${row.target.writes}`] : []),
  ];
}

/**
 * Placeholders whose values only exist once another request answered, and the fields of
 * a 2xx JSON answer they are taken from (at any depth), or of the query of where a URL in
 * it leads (the sweep follows such a URL one hop, as a browser would: an authorization
 * request answers with its `code` and `state`). `code` is special: the one-time codes in
 * the messages the same request sent.
 */
const HARVESTED_FIELDS: Record<string, string[]> = {
  context: ["context"],
  state: ["state"],
  deviceId: ["id"],
  consentId: ["id"],
  keepDeviceId: ["id"],
  qrCode: ["qr_code"],
  base32Secret: ["base32Secret"],
  totpId: ["id"],
  providerCode: ["code"],
};
const CODE = "code";

/**
 * Placeholders computed when the request is sent, from another placeholder's value:
 * `otpCode` is the current TOTP code (RFC 6238, otplib) of the secret the same request
 * carries, as an authenticator app would show it.
 */
const DERIVED: Record<string, { from: string; make: (value: string) => Promise<string> }> = {
  otpCode: { from: "base32Secret", make: (secret) => generate({ secret }) },
};

/** Placeholders that must be new for every request: a registration's sub, a contact change's address, a new password. */
const FRESH: Record<string, (n: string) => string> = {
  sub: (n) => `rt-${n}`,
  email: (n) => `rt-${n}@example.com`,
  phone: (n) => `7999${n.replace(/\D/g, "").slice(-7).padStart(7, "0")}`,
  newPassword: (n) => `Violet-Kettle-${n}`,
};

/** New values for the FRESH placeholders, unique by `tag`: a sample outside the sweep (cold start) needs them too. */
export function freshValues(tag: string): Record<string, string> {
  return Object.fromEntries(Object.entries(FRESH).map(([name, make]) => [name, make(tag)]));
}

/** A fresh value an accepted request made current: the account's password after a change. */
const BECOMES: Record<string, string[]> = { newPassword: ["password", "current"] };

/** Tries of one sample with harvested values before its producer is asked for a fresh one. */
const MAX_TRIES = 8;

/** What one 2xx answer made available, and the sample to send again for more of it. */
interface Harvest {
  source: Sample;
  values: Map<string, string[]>;
}

/** Writes before reads before deletes, so reads find what writes created and deletes run last. */
const METHOD_ORDER: Record<string, number> = { PUT: 0, POST: 1, PATCH: 1, GET: 2, DELETE: 3 };

export function succeeded(row: RoundTripRow | undefined): boolean {
  return row?.ok === true;
}

/**
 * A 2xx, or a redirect the route documents as its answer (the bind callback's 302) whose
 * Location reports no `error` (RFC 6749 4.1.2.1 puts failures there).
 */
function answered(route: Route, status: number, location: string | null): boolean {
  if (status < 300) return true;
  if (status >= 400 || !(status in route.responses) || !location) return false;
  return !new URL(location, "http://localhost").searchParams.has("error");
}

function collectFields(json: unknown, found: Map<string, string[]>): void {
  if (Array.isArray(json)) {
    for (const item of json) collectFields(item, found);
    return;
  }
  if (json === null || typeof json !== "object") return;
  for (const [key, value] of Object.entries(json)) {
    if (typeof value === "string") found.set(key, [...(found.get(key) ?? []), value]);
    else collectFields(value, found);
  }
}

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** One hop to a URL an answer gave (redirects not followed): the query fields of where it sends the browser. */
async function whereItLeads(url: string): Promise<Record<string, string>> {
  try {
    const response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5000) });
    const location = response.headers.get("location");
    return location ? Object.fromEntries(new URL(location, url).searchParams) : {};
  } catch {
    // A URL nobody answers (an example address) simply offers nothing.
    return {};
  }
}

/** A sample's path parameters, in a form two samples can be compared by. */
function pathParamsOf(event: APIGatewayProxyEventV2): string {
  return JSON.stringify(Object.entries(event.pathParameters ?? {}).sort(([a], [b]) => a.localeCompare(b)));
}

function placeholdersOf(event: APIGatewayProxyEventV2): Set<string> {
  return new Set([...JSON.stringify(event).matchAll(/\{\{([^}:]+)\}\}/g)].map((m) => m[1]));
}

function outboxSize(file: string): number {
  return existsSync(file) ? statSync(file).size : 0;
}

/** The texts of the messages appended to the outbox file after `offset` (docs/configuration.md format). */
function outboxSince(file: string, offset: number): string[] {
  if (outboxSize(file) <= offset) return [];
  return readFileSync(file)
    .subarray(offset)
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { text: string }).text);
}

export interface SweepOptions {
  /** The outbox file the stack's messages go to (config().outboxFile). */
  outboxFile: string;
  /** Digits of a one-time code (config().settings.codes.length). */
  codeLength: number;
  /**
   * Puts back seeded data a write took away (a password change forgets the devices),
   * for a sample whose producer no longer answers the value it needs.
   */
  reseed?: () => Promise<void>;
}

class Sweep {
  readonly rows = new Map<string, RoundTripRow>();
  private readonly harvests: Harvest[] = [];
  private fresh = 0;
  private readonly runId = Date.now().toString(36);

  constructor(
    private readonly samples: Map<string, Sample[]>,
    private readonly base: string,
    private readonly values: Record<string, string>,
    private readonly options: SweepOptions,
  ) {}

  private async send(event: APIGatewayProxyEventV2) {
    const url = `${this.base}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ""}`;
    // fetch sets host and length itself.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      if (value !== undefined && name !== "host" && name !== "content-length") headers[name] = value;
    }
    // Payload 2.0 keeps cookies apart from the headers; a browser sends them as one.
    if (event.cookies?.length) headers.cookie = event.cookies.join("; ");
    const body =
      event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, "base64") : event.body;
    const outboxBefore = outboxSize(this.options.outboxFile);
    // A redirect is an answer to measure, not a hop to take.
    const response = await fetch(url, { method: event.requestContext.http.method, headers, body, redirect: "manual" });
    const text = await response.text();
    const sent = outboxSince(this.options.outboxFile, outboxBefore);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return {
      status: response.status,
      location: response.headers.get("location"),
      spent: spentFrom(response.headers),
      json,
      sent,
    };
  }

  /** Keeps the newest answer's values, so a later sample can use them. */
  private async harvest(source: Sample, json: unknown, sent: string[]): Promise<void> {
    const fields = new Map<string, string[]>();
    collectFields(json, fields);
    for (const url of [...fields.values()].flat().filter((v) => this.isElsewhere(v))) {
      collectFields(await whereItLeads(url), fields);
    }
    const values = new Map<string, string[]>();
    for (const [placeholder, names] of Object.entries(HARVESTED_FIELDS)) {
      const found = names.flatMap((name) => fields.get(name) ?? []);
      if (found.length > 0) values.set(placeholder, [...new Set(found)]);
    }
    const codePattern = new RegExp(`\\b\\d{${this.options.codeLength}}\\b`);
    const codes = sent.map((text) => text.match(codePattern)?.[0]).filter((c): c is string => c !== undefined);
    if (codes.length > 0) values.set(CODE, [...new Set(codes.reverse())]);
    if (values.size > 0) this.harvests.unshift({ source, values });
  }

  /**
   * An http(s) URL of another server on this machine (the sample provider): an answer
   * sending the browser there. The sweep stays on loopback: example addresses and schema
   * ids in answers (the OpenAPI document) are never fetched.
   */
  private isElsewhere(value: string): boolean {
    if (!/^https?:\/\//.test(value) || value.startsWith(this.base)) return false;
    return LOOPBACK_HOSTS.has(new URL(value).hostname);
  }

  /** Fillings of the harvested placeholders from one answer: every combination of its values. */
  private fillingsFrom(harvest: Harvest, needed: string[]): Record<string, string>[] {
    let fillings: Record<string, string>[] = [{}];
    for (const name of needed) {
      const options = harvest.values.get(name);
      if (!options) return [];
      fillings = fillings.flatMap((filling) => options.map((value) => ({ ...filling, [name]: value })));
    }
    return fillings;
  }

  /** Answers of the sample's own function first (its ids are likelier to fit), newest first. */
  private candidates(sample: Sample, needed: string[]): Harvest[] {
    const usable = this.harvests.filter((h) => needed.every((name) => h.values.has(name)));
    return [...usable.filter((h) => h.source.fn === sample.fn), ...usable.filter((h) => h.source.fn !== sample.fn)];
  }

  private freshValues(placeholders: Set<string>): Record<string, string> {
    this.fresh += 1;
    const all = freshValues(`${this.runId}-${this.fresh}`);
    return Object.fromEntries(Object.entries(all).filter(([name]) => placeholders.has(name)));
  }

  private record(route: Route, sample: Sample, status: number, ok: boolean, spent: Spent): boolean {
    const mode = modeOf(sample.event, route);
    const key = `${route.id} ${mode}`;
    const known = this.rows.get(key);
    const row: RoundTripRow = {
      id: route.id,
      route: routeKey(route),
      mode,
      sample: sample.file,
      status,
      ok,
      ...spent,
      target: targetOf(mode),
      ...(mode === "user" && { event: route.event?.inTransaction ? "in the route's write" : "own write" }),
    };
    // The worst 2xx sample of a route and mode is its figure; an error only stands in for none.
    if (ok ? !succeeded(known) || (known?.roundTrips ?? 0) < spent.roundTrips : !succeeded(known))
      this.rows.set(key, row);
    return ok;
  }

  /** Sends the sample with one filling; true on 2xx. Undefined when a placeholder has no value. */
  private async attempt(route: Route, sample: Sample, filling: Record<string, string>): Promise<boolean | undefined> {
    const placeholders = placeholdersOf(sample.event);
    const fresh = this.freshValues(placeholders);
    let event: APIGatewayProxyEventV2;
    const filled: Record<string, string> = { ...this.values, ...fresh, ...filling };
    for (const name of placeholders) {
      const rule = DERIVED[name];
      if (rule && filled[rule.from] !== undefined) filled[name] = await rule.make(filled[rule.from]);
    }
    try {
      event = await prepareEvent(sample.event, filled);
    } catch {
      return undefined;
    }
    const { status, location, spent, json, sent } = await this.send(event);
    const ok = this.record(route, sample, status, answered(route, status, location), spent);
    if (ok) {
      await this.harvest(sample, json, sent);
      for (const [name, value] of Object.entries(fresh)) {
        for (const target of BECOMES[name] ?? []) this.values[target] = value;
      }
    }
    return ok;
  }

  /** Runs the sample once; with harvested placeholders it tries what earlier answers gave, then asks a producer again. */
  async run(route: Route, sample: Sample): Promise<boolean> {
    const needed = [...placeholdersOf(sample.event)].filter(
      (name) => (name in HARVESTED_FIELDS || name === CODE) && !(name in this.values),
    );
    if (needed.length === 0) {
      if (await this.attempt(route, sample, {})) return true;
      if (await this.recreate(route, sample)) return true;
      // Refused for who it is (earlier samples changed sample-user's password or modes): once more after the seed is back.
      if (this.options.reseed && this.rows.get(`${route.id} ${modeOf(sample.event, route)}`)?.status === 401) {
        await this.options.reseed();
        if (await this.attempt(route, sample, {})) return true;
      }
      return this.noExample(route, sample);
    }
    let tries = 0;
    const candidates = this.candidates(sample, needed);
    for (const harvest of candidates) {
      for (const filling of this.fillingsFrom(harvest, needed)) {
        if (tries++ >= MAX_TRIES) break;
        if (await this.attempt(route, sample, filling)) return true;
      }
    }
    // Earlier values were used up (a decided QR code, a forgotten device): ask again,
    // after putting the seed back if the first asking brings nothing.
    const producer = this.producerOf(route, candidates[0]?.source);
    for (const reseed of [undefined, this.options.reseed]) {
      if (!producer) break;
      if (reseed) await reseed();
      const fresh = await this.ask(producer, needed);
      for (const filling of fresh.slice(0, MAX_TRIES)) {
        if (await this.attempt(route, sample, filling)) return true;
      }
    }
    return this.noExample(route, sample);
  }

  /**
   * Where a value comes from: the collection a path parameter belongs to (GET .../uas for
   * DELETE .../uas/{id}), else the sample whose answer gave the newest candidate.
   */
  private producerOf(route: Route, source: Sample | undefined): { route: Route; sample: Sample } | undefined {
    const collection = route.path.replace(/\/\{[^}]+\}$/, "");
    const list = collection !== route.path && routes.find((r) => r.method === "GET" && r.path === collection);
    const listSample = list && this.samples.get(routeKey(list))?.[0];
    if (list && listSample) return { route: list, sample: listSample };
    const sourceRoute = source && routes.find((r) => routeKey(r) === source.event.routeKey);
    return sourceRoute && source ? { route: sourceRoute, sample: source } : undefined;
  }

  /** Sends the producer once more; the fillings its answer offers. */
  private async ask(producer: { route: Route; sample: Sample }, needed: string[]): Promise<Record<string, string>[]> {
    const newest = this.harvests[0];
    if (!(await this.attempt(producer.route, producer.sample, {}))) return [];
    return this.harvests[0] === newest ? [] : this.fillingsFrom(this.harvests[0], needed);
  }

  /**
   * A DELETE of what another sample deleted already (two API versions of one unlink):
   * the write samples with the same path parameters create it again, then the DELETE
   * goes once more.
   */
  private async recreate(route: Route, sample: Sample): Promise<boolean> {
    const params = pathParamsOf(sample.event);
    if (route.method !== "DELETE" || params === "[]") return false;
    let made = false;
    for (const writer of routes.filter((r) => r.method === "POST" || r.method === "PUT")) {
      for (const candidate of this.samples.get(routeKey(writer)) ?? []) {
        if (pathParamsOf(candidate.event) === params && (await this.attempt(writer, candidate, {}))) made = true;
      }
    }
    return made && (await this.attempt(route, sample, {})) === true;
  }

  /** A route and mode none of whose samples could be filled yet says so. */
  private noExample(route: Route, sample: Sample): false {
    const mode = modeOf(sample.event, route);
    const key = `${route.id} ${mode}`;
    if (!this.rows.has(key)) {
      this.rows.set(key, { id: route.id, route: routeKey(route), mode, sample: sample.file, status: "no example" });
    }
    return false;
  }
}

/**
 * Every sample once, writes first and deletes last; samples that found no value or no
 * 2xx are tried again while a pass brings new 2xx answers (a state appears only after a
 * contact change, a device id only after a list), before the deletes and after them.
 */
export async function measureRoundTrips(
  base: string,
  values: Record<string, string>,
  options: SweepOptions,
): Promise<RoundTripRow[]> {
  const samples = samplesByRouteKey();
  const sweep = new Sweep(samples, base, { ...values }, options);
  const ordered = [...routes].sort((a, b) => (METHOD_ORDER[a.method] ?? 9) - (METHOD_ORDER[b.method] ?? 9));
  const phases = [ordered.filter((r) => r.method !== "DELETE"), ordered.filter((r) => r.method === "DELETE")];
  for (const phase of phases) {
    let pending = phase.flatMap((route) => (samples.get(routeKey(route)) ?? []).map((sample) => ({ route, sample })));
    let first = true;
    while (pending.length > 0) {
      const left: typeof pending = [];
      let progress = false;
      for (const { route, sample } of pending) {
        const covered = succeeded(sweep.rows.get(`${route.id} ${modeOf(sample.event, route)}`));
        if (!first && covered) continue;
        if (await sweep.run(route, sample)) progress = true;
        else left.push({ route, sample });
      }
      first = false;
      if (!progress) break;
      pending = left;
    }
  }
  const rows: RoundTripRow[] = [];
  for (const route of ordered) {
    const own = [...sweep.rows.values()].filter((row) => row.id === route.id);
    if (own.length === 0)
      rows.push({ id: route.id, route: routeKey(route), mode: "none", sample: "-", status: "no example" });
    rows.push(...own);
  }
  return rows;
}

/** Routes answering 2xx above their target. */
export function overTarget(rows: RoundTripRow[]): RoundTripRow[] {
  return rows.filter((row) => overBy(row).length > 0);
}

export function roundTripTable(rows: RoundTripRow[]): string[][] {
  const over = new Set(overTarget(rows));
  return [
    [
      "route",
      "mode",
      "status",
      "round trips",
      "reads",
      "writes",
      "RCU",
      "WCU",
      "security event",
      "target",
      "",
      "sample",
    ],
    ...rows.map((row) => [
      row.id,
      row.mode,
      String(row.status),
      succeeded(row) ? String(row.roundTrips) : row.status === "no example" ? "-" : `(${row.roundTrips} on error)`,
      succeeded(row) ? String(row.reads) : "-",
      succeeded(row) ? String(row.writes) : "-",
      succeeded(row) ? String(row.rcu) : "-",
      succeeded(row) ? String(row.wcu) : "-",
      row.event === "own write" ? "own write" : row.event === "in the route's write" ? "in the write" : "-",
      row.target === undefined ? "-" : `r ${row.target.reads}, w ${row.target.writes}`,
      over.has(row) ? `OVER: ${overBy(row).join(", ")}` : "",
      row.sample,
    ]),
  ];
}

/** sample-user's password as seeded, to put back when samples changed it. */
let sampleUserHash: PasswordHash | undefined;

/**
 * Two remembered devices of sample-user, as two sign-ins leave them (the device samples
 * forget them); its seeded password back, and no forced change or second factor, which
 * HTTP Basic of a user refuses (samples set both).
 */
/** sample-org, the organization the organization and SCIM samples act on (events/orgs, events/scim). */
export async function createSampleOrganization(now: number): Promise<void> {
  await services().groups.create({
    id: "sample-org",
    profile: "org",
    name: "Sample organization",
    attributes: {},
    createdAt: now,
    updatedAt: now,
  });
}

export async function seedSampleDevices(): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  if (sampleUserHash) {
    await services().accountSecurity.setModes("sample-user", {}, ["needPasswordChange", "requiredFactor"]);
    await services().logins.commit([services().logins.credentialItem("sample-user", sampleUserHash, now, [])]);
  }
  const describeUserAgent = await userAgentDescriber();
  const devices = ["Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)", "svc-bench/1.0"].map(
    (userAgent): DeviceRecord => ({
      ...describeUserAgent(userAgent),
      id: randomBytes(12).toString("base64url"),
      subjectId: "sample-user",
      userAgent,
      latestIp: "203.0.113.10",
      createdAt: now,
      lastUsed: now,
      newlyCreated: true,
      trusted: false,
    }),
  );
  await services().logins.commit(devices.map((device) => services().sessions.deviceItem(device)));
}

/** The password events/sample-users.jsonl gives an account: the one samples with HTTP Basic of a user carry. */
export function samplePassword(sub: string): string {
  const lines = readFileSync("events/sample-users.jsonl", "utf8").split("\n").filter(Boolean);
  const found = lines.map((line) => JSON.parse(line) as { sub?: string; password?: string }).find((u) => u.sub === sub);
  if (!found?.password) throw new Error(`events/sample-users.jsonl gives ${sub} no password`);
  return found.password;
}

/**
 * The sample events' accounts (events/sample-users.jsonl, sample-user with its password
 * there, hashed with `scrypt`) with their devices, the sample application, and a
 * refresh token.
 */
export async function seedSampleAccounts(
  base: string,
  client: { id: string; secret: string },
  scrypt: ScryptParams,
): Promise<Record<string, string>> {
  const now = Math.floor(Date.now() / 1000);
  const password = samplePassword("sample-user");
  const hash = await hashPassword(password, scrypt);
  sampleUserHash = hash;
  for (const sample of SAMPLE_CLIENTS) await registerClient(services().clients, sample, true);
  await services().resources.create({ ...SAMPLE_RESOURCE, createdAt: now, updatedAt: now }, []);
  await services().accounts.create(
    {
      sub: "sample-user",
      family_name: "Ivanova",
      given_name: "Maria",
      locked: false,
      email: { value: "maria@example.com", verified: true },
      phone_number: { value: "79991234567", verified: true },
      createdAt: now,
      updatedAt: now,
    },
    hash,
  );
  await services().accounts.create({
    sub: "sample-admin",
    family_name: "Smith",
    given_name: "John",
    locked: false,
    email: { value: "john.smith@example.com", verified: true },
    createdAt: now,
    updatedAt: now,
  });
  // The account the deletion sample removes (events/users/delete-user-system.json).
  await services().accounts.create({
    sub: "sample-leaver",
    family_name: "Leaver",
    given_name: "Lena",
    locked: false,
    createdAt: now,
    updatedAt: now,
  });
  // A group sample-user stays in whatever order the group samples run (acme's members come
  // and go), so the sample of its groups (events/groups/user-groups-*.json) lists one.
  await services().groups.create({
    id: "sample-team",
    profile: "org",
    name: "Sample team",
    attributes: {},
    createdAt: now,
    updatedAt: now,
  });
  await services().groups.addMembers("org", "sample-team", ["sample-user"], now);
  // The organization the organization admin samples (events/orgs/*.json) act on, with
  // sample-admin as its ORG_ADMIN; sample-user joins and leaves it in the samples.
  await createSampleOrganization(now);
  await services().groups.addMembers("org", "sample-org", ["sample-admin"], now);
  await services().rights.importGrants([
    {
      subject: { kind: "user", id: "sample-admin" },
      object: { kind: "grps", id: "sample-org", profile: "org" },
      right: "ORG_ADMIN",
      tags: ["org"],
    },
  ]);
  // The user the SCIM samples (events/scim/users-*.json) read, change and deprovision: an
  // account of sample-org with the record a provider's POST would have left.
  const scimAttributes = {
    userName: "sample.scim@example.com",
    name: { givenName: "Sam", familyName: "Scim" },
    emails: [{ value: "sample.scim@example.com", type: "work", primary: true }],
    active: true,
  };
  await services().accounts.createWith(
    {
      sub: "sample-scim-user",
      given_name: "Sam",
      family_name: "Scim",
      locked: false,
      email: { value: "sample.scim@example.com", verified: false },
      createdAt: now,
      updatedAt: now,
    },
    undefined,
    scimStore().users.newItems({
      orgId: "sample-org",
      id: "sample-scim-user",
      name: scimAttributes.userName,
      attributes: scimAttributes,
      version: 1,
      created: now * 1000,
      lastModified: now * 1000,
    }),
    () => new Error("the sample SCIM user could not be seeded"),
  );
  await services().groups.addMembers("org", "sample-org", ["sample-scim-user"], now);
  // The group the SCIM group samples (events/scim/groups-*.json) read, change and delete.
  await scimStore().groups.create({
    orgId: "sample-org",
    id: "sample-scim-group",
    name: "Sample engineers",
    attributes: { displayName: "Sample engineers", members: [{ value: "sample-scim-user" }] },
    version: 1,
    created: now * 1000,
    lastModified: now * 1000,
  });
  await seedSampleDevices();
  // A bind's callback now waits for the owner's password, which the sweep does not
  // type: the link and remembered tokens the fedToken sample reads are seeded instead.
  const link = { sub: "sample-user", fpType: "oidc", fpName: "mock", sid: "sample-external-account" };
  const tokenKey = await dataKeys().key("federated-tokens");
  const tokens = sealProviderTokens(tokenKey, link, { accessToken: "sample-provider-token", expiresIn: 3600 }, now);
  await services().federation.link({ ...link, tokens }, now);
  const clientBasic = Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString(
    "base64",
  );
  const response = await fetch(`${base}/svc/oauth/te`, {
    method: "POST",
    headers: { authorization: `Basic ${clientBasic}`, "content-type": "application/x-www-form-urlencoded" },
    body: `grant_type=password&username=sample-user&password=${encodeURIComponent(password)}&scope=svc_api_user`,
  });
  const json = (await response.json()) as { refresh_token?: string };
  if (!response.ok || !json.refresh_token) {
    throw new Error(`sample sign-in failed: ${response.status} ${JSON.stringify(json)}`);
  }
  return {
    clientId: client.id,
    clientSecret: client.secret,
    clientBasic,
    username: "sample-user",
    password,
    current: password,
    refreshToken: json.refresh_token,
  };
}
