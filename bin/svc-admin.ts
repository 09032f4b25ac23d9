import { createReadStream, createWriteStream, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { config, processEnv, setEnvDefaults } from "../lib/config";
import { LOCAL_TOOL_ENV } from "../lib/config/environment";
import { ConfigError } from "../lib/config/validation";
import { accountTransfer, clientRegistrationDeps, keyDeps, services } from "../lib/container";
import { dataKeys } from "../lib/crypto/data-key";
import { exportAccounts } from "../lib/domain/accounts/export";
import { type TotpSealing, totpSealing } from "../lib/domain/accounts/export-line";
import { type ImportProgress, type ImportSource, importAccounts } from "../lib/domain/accounts/import";
import { auth0Lines, cognitoCsvLines } from "../lib/domain/accounts/import-formats";
import { ClientDefinitionError, changeClientAsOperator, registerClient } from "../lib/domain/clients/admin";
import { type ClientChange, type ClientDefinition, weakSecretWarnings } from "../lib/domain/clients/client";
import { ClientExistsError } from "../lib/domain/clients/ports";
import { clientRegistrationUseCases } from "../lib/domain/clients/registration";
import { ApiError } from "../lib/domain/errors";
import { keyUseCases, type RotationView } from "../lib/domain/keys/keys";
import { OPERATOR_CONSOLE_CLIENT } from "../lib/domain/operators/console-client";
import { backfillPasskeyClaims } from "../lib/domain/passkeys/claim-backfill";
import { resourceUseCases } from "../lib/domain/resources/management";
import { type ResourceConsent, resourceId } from "../lib/domain/resources/resource";
import { rightUseCases } from "../lib/domain/rights/rights";
import { DATA_KEY_FILE, ensureLocalDataKey } from "../lib/local/data-key";
import { JavaMissingError } from "../lib/local/dynamodb-local";
import { attachLocalStorage } from "../lib/local/stack";
import { ACCESS_TOKEN_ALG } from "../lib/tokens/key-ring";

/** `svc-admin` (docs/administration.md): operator commands on the local stack, or on a deployed one with --table. */

const USAGE = `usage: svc-admin [--table NAME] <command> [options]

commands:
  clients create --id ID --scopes "p1 p2" [--secret S] [--redirect-uris "u1 u2"] [--rest-password P]
                  [--public] [--grant-types "g1 g2"] [--post-logout-redirect-uris "u1 u2"]
                  [--resources "r1 r2"] [--exchange-from "a1 a2"] [--first-party]
                  [--trust-relayed-address] [--id-token-alg RS256|ES256] [--backchannel-logout-uri URI]
                  [--dpop-bound] [--require-pushed-authorization-requests]
                                  grant types: authorization_code refresh_token client_credentials
                                  password urn:svc:params:oauth:grant-type:qr
                                  urn:ietf:params:oauth:grant-type:device_code
                                  urn:ietf:params:oauth:grant-type:token-exchange (default: all but
                                  password, device_code and token-exchange; --public: authorization_code
                                  refresh_token, no secret, PKCE; may add device_code)
                                  --exchange-from: audiences of other clients' tokens it may
                                  exchange (RFC 8693; the issuer: the management API)
                                  --trust-relayed-address: password guesses count against the
                                  X-Forwarded-For address alone (confidential clients only)
                                  --id-token-alg: how its ID tokens are signed (default RS256)
                                  --backchannel-logout-uri: where logout tokens of its users'
                                  ended sessions are posted (OIDC Back-Channel Logout)
                                  --dpop-bound: every token request must carry a DPoP proof
                                  --require-pushed-authorization-requests: its authorization
                                  requests must come by request_uri from POST /svc/oauth/par
      register an application; without --secret a secret is generated and shown once
  clients update --id ID [--require-pushed-authorization-requests |
                  --no-require-pushed-authorization-requests]
      require (or stop requiring) pushed authorization requests of an application (RFC 9126)
  clients list [--json]           list applications (a table, or one JSON object per line)
  clients delete --id ID          delete an application
  clients release-dynamic --app APP [--count N]
      release free dynamic client ids (dyn~APP~...) for registration's bindDynClient
  clients initial-token [--uses N] [--days D]
      an initial access token for OAuth client registration (RFC 7591, POST /svc/oauth/clients):
      good for N registrations (default 1) within D days (default 7); shown once
  resources create --uri URI --name NAME --scopes "s1 s2" [--consent user|operator]
      register a protected resource (RFC 8707): tokens for it carry aud URI and its own scopes;
      --consent user: any client may ask on a user's behalf, the user consents (MCP servers);
      operator (default): only clients created with --resources URI may ask
  resources list [--json]         list protected resources
  resources delete --uri URI      delete a protected resource
  keys rotate [--now]             publish a new signing key per algorithm (ES256 for access tokens,
                                  RS256 for ID tokens); each signs after 7 minutes, once every
                                  JWKS cache (max-age 300 s) and function key cache has it. The
                                  previous keys sign until then and verify until their tokens expire.
                                  On AWS the stack rotates on a schedule (keyRotationDays).
      --now: emergency rotation (e.g. a leaked key): the new key signs at once, and verifiers
      still holding the older JWKS refuse its tokens until they reread it (up to 5 minutes)
  users import FILE [--concurrency N] [--format jsonl|cognito-csv|auth0]
      create accounts from a JSON-lines file (one account per line, optional "password" or
      "password_hash": ours, bcrypt, PBKDF2-SHA256, argon2id, scrypt), an export of this
      command's twin, a Cognito user CSV or an Auth0 bulk export; a rerun changes nothing
  users export [--out FILE] [--with-factors] [--segments N]
      every account as JSON lines (docs/schemas/user-export.schema.json) with its password
      hash, groups and rights; --with-factors adds TOTP secrets (in the clear) and passkeys
  operators add --user SUB [--read-only]
      make an account an operator of the admin console (<issuer>/console/): APP_ADMIN over the
      console's application, or SYS_MON with --read-only; it signs in with a second factor
  operators remove --user SUB     take both rights away; the account's console calls fail at once
  operators list                  the accounts holding either right, with the right
  passkeys claim                  upgrade step, once after upgrading to credential id claims: each
                                  passkey stored without a claim gets one (a rerun writes nothing);
                                  a credential id held by two accounts is listed, exit 2

options:
  --table NAME   work on the deployed stack's table with the default AWS credentials
                 (AWS_PROFILE, AWS_REGION, ...) instead of the local stack
  -h, --help     show this help

Without --table the local stack is used: the DynamoDB Local of a running \`npm start\`
(DYNAMODB_PORT, default 8000), or one started on its data for the duration of the command.
Set SVC_CONFIG to the stack's settings file: \`keys rotate\` keeps retired keys published
for tokens.accessTtlSeconds.
`;

const OPTIONS = {
  table: { type: "string" },
  help: { type: "boolean", short: "h" },
  id: { type: "string" },
  secret: { type: "string" },
  scopes: { type: "string" },
  "redirect-uris": { type: "string" },
  "rest-password": { type: "string" },
  public: { type: "boolean" },
  "grant-types": { type: "string" },
  "post-logout-redirect-uris": { type: "string" },
  resources: { type: "string" },
  "exchange-from": { type: "string" },
  "first-party": { type: "boolean" },
  "trust-relayed-address": { type: "boolean" },
  "require-pushed-authorization-requests": { type: "boolean" },
  "no-require-pushed-authorization-requests": { type: "boolean" },
  "id-token-alg": { type: "string" },
  "dpop-bound": { type: "boolean" },
  "backchannel-logout-uri": { type: "string" },
  json: { type: "boolean" },
  concurrency: { type: "string" },
  app: { type: "string" },
  count: { type: "string" },
  uses: { type: "string" },
  days: { type: "string" },
  now: { type: "boolean" },
  format: { type: "string" },
  out: { type: "string" },
  "with-factors": { type: "boolean" },
  segments: { type: "string" },
  uri: { type: "string" },
  name: { type: "string" },
  consent: { type: "string" },
  user: { type: "string" },
  "read-only": { type: "boolean" },
} as const;

type OptionName = keyof typeof OPTIONS;
type Values = Partial<Record<OptionName, string | boolean>>;

/** Options each command accepts besides the global ones. */
const COMMANDS: Record<string, { options: OptionName[]; positionals: string[] }> = {
  "clients create": {
    options: [
      "id",
      "secret",
      "scopes",
      "redirect-uris",
      "rest-password",
      "public",
      "grant-types",
      "post-logout-redirect-uris",
      "resources",
      "exchange-from",
      "first-party",
      "trust-relayed-address",
      "id-token-alg",
      "dpop-bound",
      "backchannel-logout-uri",
      "require-pushed-authorization-requests",
    ],
    positionals: [],
  },
  "clients update": {
    options: ["id", "require-pushed-authorization-requests", "no-require-pushed-authorization-requests"],
    positionals: [],
  },
  "clients list": { options: ["json"], positionals: [] },
  "clients delete": { options: ["id"], positionals: [] },
  "clients release-dynamic": { options: ["app", "count"], positionals: [] },
  "clients initial-token": { options: ["uses", "days"], positionals: [] },
  "resources create": { options: ["uri", "name", "scopes", "consent"], positionals: [] },
  "resources list": { options: ["json"], positionals: [] },
  "resources delete": { options: ["uri"], positionals: [] },
  "keys rotate": { options: ["now"], positionals: [] },
  "users import": { options: ["concurrency", "format"], positionals: ["FILE"] },
  "users export": { options: ["out", "with-factors", "segments"], positionals: [] },
  "passkeys claim": { options: [], positionals: [] },
  "operators add": { options: ["user", "read-only"], positionals: [] },
  "operators remove": { options: ["user"], positionals: [] },
  "operators list": { options: [], positionals: [] },
};

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** A mistake in the command line: exit 2 with the usage. */
class UsageError extends Error {}

/** The command could not do its job: exit 1 with this message only. */
class CommandError extends Error {}

/**
 * parseArgs quotes the offending argument, which may be `--secrte=<the secret>`;
 * only the option's name is repeated back.
 */
function describeParseError(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const name = /'(-{1,2}[^'=\s]*)/.exec(message)?.[1];
    return name ? `unknown option ${name}` : "unknown option";
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = /'(--[a-z-]+)/.exec(message)?.[1];
    return name ? `${name} needs a value` : "an option needs a value";
  }
  return "cannot parse the command line";
}

function words(value: string | boolean | undefined): string[] {
  return typeof value === "string" ? value.split(/[\s,]+/).filter(Boolean) : [];
}

function stringOption(values: Values, name: OptionName): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

function requireOption(values: Values, name: OptionName): string {
  const value = stringOption(values, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

const out = (line = "") => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

async function clientsCreate(values: Values): Promise<number> {
  const def: ClientDefinition = {
    clientId: requireOption(values, "id"),
    scopes: words(requireOption(values, "scopes")),
    secret: stringOption(values, "secret"),
    redirectUris: words(values["redirect-uris"]),
    restPassword: stringOption(values, "rest-password"),
    public: values.public === true,
    grantTypes: values["grant-types"] === undefined ? undefined : words(values["grant-types"]),
    postLogoutRedirectUris: words(values["post-logout-redirect-uris"]),
    resources: words(values.resources),
    exchangeFrom: words(values["exchange-from"]),
    firstParty: values["first-party"] === true,
    trustRelayedAddress: values["trust-relayed-address"] === true,
    requirePushedAuthorizationRequests: values["require-pushed-authorization-requests"] === true,
    idTokenSignedResponseAlg: stringOption(values, "id-token-alg"),
    backchannelLogoutUri: stringOption(values, "backchannel-logout-uri"),
    dpopBoundAccessTokens: values["dpop-bound"] === true,
  };
  try {
    const { clientId, secret } = await registerClient(services().clients, def, false);
    out(`client id: ${clientId}`);
    if (def.public) {
      out("public client: no secret; it signs users in with PKCE");
    } else if (def.secret === undefined) {
      out(`client secret: ${secret}`);
      out("the secret is shown only now: only its digest is stored");
    } else {
      out("client secret: set from --secret");
    }
    if (def.restPassword !== undefined) out("REST password: set from --rest-password");
    for (const warning of weakSecretWarnings(def)) err(`warning: ${warning}`);
    return 0;
  } catch (error) {
    if (error instanceof ClientExistsError) {
      throw new CommandError(`client ${def.clientId} already exists (delete it first to replace it)`);
    }
    if (error instanceof ClientDefinitionError) throw new CommandError(`invalid client: ${error.message}`);
    throw error;
  }
}

/** The flags `clients update` takes; each changes one field, the others stay. */
function clientChangeOf(values: Values): ClientChange {
  const require = values["require-pushed-authorization-requests"] === true;
  const stop = values["no-require-pushed-authorization-requests"] === true;
  if (require && stop) throw new UsageError("--require-pushed-authorization-requests or its --no- form, not both");
  if (!require && !stop)
    throw new UsageError("clients update needs a change, e.g. --require-pushed-authorization-requests");
  return { requirePushedAuthorizationRequests: require };
}

async function clientsUpdate(values: Values): Promise<number> {
  const clientId = requireOption(values, "id");
  try {
    const changed = await changeClientAsOperator(services().clients, clientId, clientChangeOf(values));
    if (!changed) throw new CommandError(`no client ${clientId}, or it changed meanwhile; try again`);
    out(`client ${clientId}: requirePushedAuthorizationRequests ${changed.requirePushedAuthorizationRequests}`);
    return 0;
  } catch (error) {
    if (error instanceof ClientDefinitionError) throw new CommandError(`invalid client: ${error.message}`);
    throw error;
  }
}

async function clientsList(values: Values): Promise<number> {
  const clients = (await services().clients.list()).sort((a, b) => a.clientId.localeCompare(b.clientId));
  const rows = clients.map((c) => ({
    clientId: c.clientId,
    scopes: c.scopes,
    redirectUris: c.redirectUris,
    hasRestPassword: c.hasRestPassword,
    public: c.public,
    grantTypes: c.grantTypes,
    postLogoutRedirectUris: c.postLogoutRedirectUris,
    resources: c.resources,
    ...(c.exchangeFrom.length > 0 && { exchangeFrom: c.exchangeFrom }),
    firstParty: c.firstParty,
    trustRelayedAddress: c.trustRelayedAddress,
    requirePushedAuthorizationRequests: c.requirePushedAuthorizationRequests,
    idTokenSignedResponseAlg: c.idTokenSignedResponseAlg,
    dpopBoundAccessTokens: c.dpopBoundAccessTokens,
    ...(c.backchannelLogoutUri && { backchannelLogoutUri: c.backchannelLogoutUri }),
  }));
  if (values.json) {
    for (const row of rows) out(JSON.stringify(row));
    return 0;
  }
  if (rows.length === 0) {
    err("no clients");
    return 0;
  }
  const table = [
    ["CLIENT ID", "REST PASSWORD", "REDIRECT URIS", "SCOPES"],
    ...rows.map((r) => [
      r.clientId,
      r.hasRestPassword ? "yes" : "no",
      r.redirectUris.join(" ") || "-",
      r.scopes.join(" ") || "-",
    ]),
  ];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  for (const row of table) {
    // The last column is not padded: scope lists are long and would only add trailing blanks.
    out(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join("  "));
  }
  return 0;
}

async function clientsDelete(values: Values): Promise<number> {
  const clientId = requireOption(values, "id");
  if (!(await services().clients.delete(clientId))) throw new CommandError(`no client ${clientId}`);
  out(`deleted client ${clientId}`);
  return 0;
}

/** The console's operators are rights over it (docs/console.md); the rights use cases check the account exists. */
async function operatorsChange(values: Values, change: "add" | "remove"): Promise<number> {
  const sub = requireOption(values, "user");
  const rights = rightUseCases(services());
  const grant = { subject: sub, object: OPERATOR_CONSOLE_CLIENT, objectType: "its" as const };
  try {
    if (change === "remove") {
      await rights.revoke({ ...grant, rights: ["APP_ADMIN", "SYS_MON"] });
      out(`${sub} is no longer an operator`);
      return 0;
    }
    const right = values["read-only"] === true ? "SYS_MON" : "APP_ADMIN";
    await rights.assign({ ...grant, rights: [right], tags: ["operator"] });
    out(`${sub} is an operator (${right}); the admin console asks them for a TOTP code or a passkey`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(error.desc);
    throw error;
  }
}

async function operatorsList(): Promise<number> {
  const holders = await rightUseCases(services()).rightsOn({ kind: "its", id: OPERATOR_CONSOLE_CLIENT });
  for (const [subject, rights] of Object.entries(holders)) out(`${subject}\t${rights.join(" ")}`);
  return 0;
}

async function clientsReleaseDynamic(app: string, count: number): Promise<number> {
  for (const id of await services().dynamicClients.release(app, count)) out(id);
  return 0;
}

async function clientsInitialToken(uses: number, days: number): Promise<number> {
  const registration = clientRegistrationUseCases(clientRegistrationDeps());
  const issued = await registration.issueInitialToken(uses, days, Math.floor(Date.now() / 1000));
  out(issued.token);
  err(`good for ${uses} registration(s) until ${new Date(issued.expiresAt * 1000).toISOString()}`);
  if (config().settings.clientRegistration.mode === "off")
    err("client registration is off: set clientRegistration.mode to token or open (docs/configuration.md)");
  return 0;
}

/** The resources' use cases, their changes recorded as svc-admin's. */
const resourceAdmin = () => resourceUseCases({ ...services(), ownResource: config().issuer });
const byAdmin = (type: string) => ({ type, cId: "svc-admin", prms: { route: type } });

async function resourcesCreate(values: Values): Promise<number> {
  const consent = stringOption(values, "consent") ?? "operator";
  if (consent !== "user" && consent !== "operator") throw new UsageError("--consent must be user or operator");
  const def = {
    uri: requireOption(values, "uri"),
    name: requireOption(values, "name"),
    scopes: words(requireOption(values, "scopes")).map((name) => ({ name })),
    consent: consent as ResourceConsent,
  };
  try {
    const created = await resourceAdmin().create(def, byAdmin("resources.create"));
    out(`resource: ${created.uri} (id ${created.id})`);
    return 0;
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(`invalid resource: ${problemText(error)}`);
    throw error;
  }
}

async function resourcesList(values: Values): Promise<number> {
  const { resources } = await resourceAdmin().list();
  if (values.json) {
    for (const resource of resources) out(JSON.stringify(resource));
    return 0;
  }
  if (resources.length === 0) err("no resources");
  for (const r of resources) out(`${r.uri}  ${r.consent}  ${r.scopes.map((s) => s.name).join(" ")}  ${r.name}`);
  return 0;
}

async function resourcesDelete(values: Values): Promise<number> {
  const uri = requireOption(values, "uri");
  try {
    await resourceAdmin().remove(resourceId(uri), byAdmin("resources.delete"));
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(`no resource ${uri}`);
    throw error;
  }
  out(`deleted resource ${uri}`);
  return 0;
}

/** An API error's problems in one line. */
function problemText(error: ApiError): string {
  const list = error.details.errors?.map((p) => `${p.pos}: ${p.desc}`);
  return list?.length ? list.join("; ") : error.desc;
}

/** A whole number of `name` from 1 to `max`, or its default. */
function wholeOption(values: Values, name: OptionName, fallback: number, max: number): number {
  const value = Number(stringOption(values, name) ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new UsageError(`--${name} must be 1 to ${max}`);
  return value;
}

const parseCount = (values: Values): number => wholeOption(values, "count", 1, 1000);

async function keysRotate(now: boolean): Promise<number> {
  let rotation: RotationView;
  try {
    // The admin API's use case: the rotation commits with svc-admin's security event.
    rotation = await keyUseCases(keyDeps()).rotate(now, byAdmin("keys.rotate"));
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(error.desc.replace("with now", "with --now"));
    throw error;
  }
  const time = (seconds: number) => new Date(seconds * 1000).toISOString();
  for (const { alg, kid, activatesAt } of rotation.keys) {
    out(
      `new ${alg} signing key (${alg === ACCESS_TOKEN_ALG ? "access tokens, ID tokens registered ES256" : "ID tokens"}): ${kid}`,
    );
    out(
      `${alg} signs from: ${time(activatesAt)}${now ? " (now: verifiers with an older JWKS refuse its tokens)" : ""}`,
    );
  }
  const { retired, retiredUntil } = rotation;
  out(`retired: ${retired.length > 0 ? retired.join(" ") : "none"}`);
  if (retired.length > 0) out(`retired keys sign until then and stay in JWKS until ${time(retiredUntil)}`);
  if (rotation.warning) err(rotation.warning);
  return 0;
}

function fileLines(path: string): AsyncIterable<string> {
  // crlfDelay: a \r\n split across two chunks is still one line break.
  return createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
}

/** Non-blank lines, read once beforehand so the progress bar has a total. */
async function countLines(path: string): Promise<number> {
  let count = 0;
  for await (const line of fileLines(path)) if (line.trim() !== "") count += 1;
  return count;
}

/** A bar on a terminal; in logs and pipes, a plain line at most every few seconds. */
function progressReporter(total: number) {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: "importing [{bar}] {value}/{total} lines | failed {failed} | {eta_formatted} left",
        hideCursor: true,
        // Restores the cursor when Ctrl-C interrupts the import.
        gracefulExit: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { failed: 0 });
    return {
      update: (p: ImportProgress) => bar.update(p.processed, { failed: p.failed }),
      stop: () => bar.stop(),
    };
  }
  const INTERVAL_MS = 5000;
  let last = Date.now();
  err(`importing ${total} lines`);
  return {
    update: (p: ImportProgress) => {
      if (Date.now() - last < INTERVAL_MS) return;
      last = Date.now();
      err(`${p.processed}/${total} lines: imported ${p.imported}, failed ${p.failed}`);
    },
    stop: () => {},
  };
}

function parseConcurrency(values: Values): number {
  const raw = stringOption(values, "concurrency");
  // Each hash takes a CPU for ~0.3 s and ~128 MiB, so more than the cores only queues.
  if (raw === undefined) return Math.max(1, Math.min(4, availableParallelism()));
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 32) throw new UsageError("--concurrency must be 1 to 32");
  return value;
}

function checkReadable(path: string): void {
  try {
    if (!statSync(path).isFile()) throw new CommandError(`${path} is not a file`);
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw new CommandError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const FORMATS = ["jsonl", "cognito-csv", "auth0"] as const;
type ImportFormat = (typeof FORMATS)[number];

function parseFormat(values: Values): ImportFormat {
  const format = stringOption(values, "format") ?? "jsonl";
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be ${FORMATS.join(", ")}`);
  return format as ImportFormat;
}

function sourceOf(path: string, format: ImportFormat): ImportSource {
  if (format === "cognito-csv") return cognitoCsvLines(fileLines(path));
  if (format === "auth0") return auth0Lines(fileLines(path));
  return fileLines(path);
}

/**
 * TOTP secrets travel in the clear in the file and are sealed with each stack's own data
 * key: the local one (.local/data-key), or SVC_DATA_KEY / SVC_DATA_KEY_SECRET_ID on AWS.
 */
async function sealing(required: boolean): Promise<TotpSealing | undefined> {
  if (!config().dataKey) {
    if (required)
      throw new CommandError("--with-factors needs the data key: set SVC_DATA_KEY or SVC_DATA_KEY_SECRET_ID");
    return undefined;
  }
  return totpSealing(await dataKeys().key("totp-secrets"));
}

async function usersImport(path: string, concurrency: number, format: ImportFormat): Promise<number> {
  const total = await countLines(path);
  const progress = progressReporter(total);
  let summary: Awaited<ReturnType<typeof importAccounts>>;
  try {
    summary = await importAccounts(sourceOf(path, format), {
      accounts: accountTransfer(),
      sealing: await sealing(false),
      concurrency,
      onProgress: (p) => progress.update(p),
    });
  } finally {
    progress.stop();
  }
  for (const { line, message } of summary.errors) err(`line ${line}: ${message}`);
  out(`imported ${summary.imported}, unchanged ${summary.unchanged}, failed ${summary.failed}`);
  return summary.failed > 0 ? 1 : 0;
}

function parseSegments(values: Values): number {
  const raw = stringOption(values, "segments") ?? "4";
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 64) throw new UsageError("--segments must be 1 to 64");
  return value;
}

/** Resolves once the stream takes more: a large export never queues in memory. */
function writer(stream: NodeJS.WritableStream): (text: string) => Promise<void> {
  return (text) =>
    new Promise((done, fail) => {
      stream.once("error", fail);
      const more = stream.write(text, () => stream.off("error", fail));
      if (more) done();
      else stream.once("drain", () => done());
    });
}

async function usersExport(outPath: string | undefined, factors: boolean, segments: number): Promise<number> {
  // The file holds password hashes (and TOTP secrets): readable by its owner only.
  const stream = outPath ? createWriteStream(outPath, { mode: 0o600 }) : process.stdout;
  const totpKeys = factors ? await sealing(true) : undefined;
  const interval = 5000;
  let last = Date.now();
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: "exporting {value} accounts | {duration_formatted}",
          hideCursor: true,
          gracefulExit: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(0, 0);
  let summary: { exported: number };
  try {
    summary = await exportAccounts({
      accounts: accountTransfer(),
      segments,
      factors,
      sealing: totpKeys,
      write: writer(stream),
      onProgress: (exported) => {
        if (bar) bar.update(exported);
        else if (Date.now() - last >= interval) {
          last = Date.now();
          err(`exported ${exported} accounts`);
        }
      },
    });
  } finally {
    bar?.stop();
    if (outPath) await new Promise<void>((done) => (stream as ReturnType<typeof createWriteStream>).end(done));
  }
  err(`exported ${summary.exported} accounts${outPath ? ` to ${outPath}` : ""}`);
  return 0;
}

/**
 * Claims for passkeys stored before claims existed. A credential id held by two accounts
 * exits 2: one of them must delete that passkey (docs/administration.md).
 */
async function passkeysClaim(): Promise<number> {
  const { written, existing, conflicts } = await backfillPasskeyClaims(services().passkeys);
  for (const { id, holder, owner } of conflicts) {
    // The start of the id is enough to find the passkey in either account's list.
    err(`conflict: credential id ${id.slice(0, 8)}... held by account ${holder} and claimed by account ${owner}`);
  }
  out(`claims written ${written}, existing ${existing}, conflicts ${conflicts.length}`);
  return conflicts.length > 0 ? 2 : 0;
}

/** Checks the whole command line before anything touches storage. */
function plan(argv: string[]): { run: () => Promise<number>; table?: string } | { exit: number } {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(describeParseError(error));
  }
  const values = parsed.values as Values;
  const { positionals } = parsed;
  if (values.help || positionals[0] === "help") {
    process.stdout.write(USAGE);
    return { exit: 0 };
  }
  if (positionals.length === 0) throw new UsageError("no command given");
  const name = positionals.slice(0, 2).join(" ");
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command: ${name}`);
  for (const option of Object.keys(values) as OptionName[]) {
    if (option !== "table" && !command.options.includes(option)) {
      throw new UsageError(`${name} does not take --${option}`);
    }
  }
  const rest = positionals.slice(2);
  if (rest.length !== command.positionals.length) {
    // Extra words are not echoed: an unquoted secret with a space would end up here.
    throw new UsageError(
      command.positionals.length > 0
        ? `${name} needs ${command.positionals.join(" ")}`
        : `${name} takes no further arguments`,
    );
  }
  const table = stringOption(values, "table");
  if (table === "") throw new UsageError("--table needs a table name");
  switch (name) {
    case "clients create":
      requireOption(values, "id");
      requireOption(values, "scopes");
      return { table, run: () => clientsCreate(values) };
    case "clients update":
      requireOption(values, "id");
      clientChangeOf(values);
      return { table, run: () => clientsUpdate(values) };
    case "clients list":
      return { table, run: () => clientsList(values) };
    case "clients delete":
      requireOption(values, "id");
      return { table, run: () => clientsDelete(values) };
    case "clients release-dynamic": {
      const app = requireOption(values, "app");
      // The app name becomes part of dyn~<app>~<id>; registration accepts 1-64 characters without ~.
      if (!/^[^~\s]{1,64}$/.test(app)) throw new UsageError("--app must be 1 to 64 characters without ~ or spaces");
      const count = parseCount(values);
      return { table, run: () => clientsReleaseDynamic(app, count) };
    }
    case "clients initial-token": {
      const uses = wholeOption(values, "uses", 1, 1000);
      const days = wholeOption(values, "days", 7, 365);
      return { table, run: () => clientsInitialToken(uses, days) };
    }
    case "resources create":
      requireOption(values, "uri");
      requireOption(values, "name");
      requireOption(values, "scopes");
      return { table, run: () => resourcesCreate(values) };
    case "resources list":
      return { table, run: () => resourcesList(values) };
    case "resources delete":
      requireOption(values, "uri");
      return { table, run: () => resourcesDelete(values) };
    case "keys rotate":
      return { table, run: () => keysRotate(values.now === true) };
    case "users export": {
      const outPath = stringOption(values, "out");
      const segments = parseSegments(values);
      const resolved = outPath === undefined ? undefined : resolve(outPath);
      return { table, run: () => usersExport(resolved, values["with-factors"] === true, segments) };
    }
    case "passkeys claim":
      return { table, run: passkeysClaim };
    case "operators add":
      requireOption(values, "user");
      return { table, run: () => operatorsChange(values, "add") };
    case "operators remove":
      requireOption(values, "user");
      return { table, run: () => operatorsChange(values, "remove") };
    case "operators list":
      return { table, run: operatorsList };
    default: {
      const path = resolve(rest[0]);
      const concurrency = parseConcurrency(values);
      const format = parseFormat(values);
      checkReadable(path);
      return { table, run: () => usersImport(path, concurrency, format) };
    }
  }
}

/** --table means AWS; the local stack's port and endpoint defaults must not apply then. */
function chooseTarget(table: string | undefined): void {
  if (table === undefined) {
    setEnvDefaults(LOCAL_TOOL_ENV);
    return;
  }
  const fromEnv = processEnv().TABLE_NAME;
  if (fromEnv && fromEnv !== table) {
    throw new UsageError(`--table ${table} contradicts TABLE_NAME=${fromEnv} in the environment; unset one`);
  }
  setEnvDefaults({ ...LOCAL_TOOL_ENV, TABLE_NAME: table, SVC_TARGET: "aws" });
}

function describeFailure(error: unknown): string {
  if (error instanceof ConfigError || error instanceof JavaMissingError) return error.message;
  const name = (error as { name?: string }).name;
  if (name === "ResourceNotFoundException") {
    return `table ${config().tableName} not found in region ${config().region} (set AWS_REGION to the stack's region)`;
  }
  if (name === "CredentialsProviderError") {
    return `no AWS credentials: ${(error as Error).message} (set AWS_PROFILE or run aws sso login)`;
  }
  return (error as Error).message || String(error);
}

async function main(argv: string[]): Promise<number> {
  let planned: ReturnType<typeof plan>;
  try {
    planned = plan(argv);
    if ("exit" in planned) return planned.exit;
    chooseTarget(planned.table);
    // Read now, against the caller's directory (SVC_CONFIG may be relative) ...
    config();
    // ... then work from the project root, where `npm start` keeps .local/ (npx runs
    // the bin in whatever subdirectory it was called from). FILE is already absolute.
    process.chdir(PROJECT_ROOT);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`svc-admin: ${error.message}`);
      process.stderr.write(USAGE);
      return 2;
    }
    if (error instanceof CommandError) {
      err(`svc-admin: ${error.message}`);
      return 1;
    }
    throw error;
  }
  let storage: { release(): Promise<void> } | undefined;
  // A DynamoDB Local we started must stop with us, also on Ctrl-C in the middle of an import.
  const interrupt = (signal: NodeJS.Signals) => {
    err(`\n${signal}: stopping`);
    void (storage?.release() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    // With --table config() points at AWS (SVC_TARGET=aws); only the local stack is attached.
    if (config().dynamodbEndpoint !== undefined && planned.table === undefined) {
      storage = await attachLocalStorage();
      // The local stack's data key, as `npm start` keeps it: TOTP secrets open and seal alike.
      ensureLocalDataKey(DATA_KEY_FILE);
    }
    return await planned.run();
  } catch (error) {
    err(`svc-admin: ${error instanceof CommandError ? error.message : describeFailure(error)}`);
    return 1;
  } finally {
    await storage?.release();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    err(`svc-admin: ${describeFailure(error)}`);
    process.exit(1);
  },
);
