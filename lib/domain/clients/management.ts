import type { SecurityEventLog } from "../audit/ports";
import type { AdminChangeEvent } from "../audit/security-event";
import { digestSecret, generateSecret } from "../credentials/secret-digest";
import { ApiError, problems } from "../errors";
import type { PendingWrite } from "../unit-of-work";
import { ClientDefinitionError, registerClient } from "./admin";
import { type ClientAdministrator, type ClientPowers, missingPermissions, widens } from "./authority";
import {
  CHANGEABLE_FIELDS,
  type ClientChange,
  type ClientDefinition,
  type ClientRecord,
  clientDefinitionProblems,
  clientPermissions,
  newClientId,
} from "./client";
import { ClientExistsError, type ClientRepository, type ClientSnapshot } from "./ports";

/**
 * The clients of the admin API (interface §4.17): what `svc-admin clients` does, for an
 * application holding svc_api_sys_clients(_chg), within what it holds itself (authority.ts).
 * Every change commits with the write the caller passes (its security event), all or none.
 * Secrets are answered once, by create and rotate, and stored only as digests.
 */

/** Writes that commit with a change of `clientId`: its security event. */
export type AlsoWrite = (clientId: string) => PendingWrite[];

/** Body of POST /svc/admin/api/v3/clients, after schema validation. */
export interface NewClientBody extends ClientChange {
  clientId?: string;
  scopes: string[];
  public?: boolean;
}

export const LIST_LIMITS = { defaultLimit: 100, maxLimit: 100 } as const;

/** Tries of a write whose client another change overtook before it is refused (409). */
const CHANGE_ATTEMPTS = 3;

const processError = (status: number, error: string, desc: string, clientId: string) =>
  new ApiError(status, "process_error", error, desc, { params: { clientId } });

export const clientProblems = {
  unknownClient: (clientId: string) => processError(404, "unknown_client", "no client has this id", clientId),
  clientExists: (clientId: string) => processError(409, "client_exists", "a client with this id exists", clientId),
  bootstrapClient: (clientId: string) =>
    processError(
      400,
      "bootstrap_client",
      "the bootstrap client is written by npm start on every start (SVC_BOOTSTRAP_CLIENT_ID and _SECRET); the admin API leaves it alone",
      clientId,
    ),
  publicClient: (clientId: string) =>
    processError(400, "public_client", "a public client has no secret: it proves its codes with PKCE", clientId),
  ownClient: (clientId: string) =>
    processError(
      400,
      "own_client",
      "a client cannot widen its own permissions, grants, resources or trust: another administrator must",
      clientId,
    ),
  /** RFC 6750 3.1: the challenge names what the token would need, as for a route's own permission. */
  notHeld: (missing: string[]) =>
    problems.badAccessToken("insufficient_scope", { error: "insufficient_scope", scope: missing.join(" ") }),
  changedConcurrently: (clientId: string) =>
    processError(409, "changed_concurrently", "the client changed while this call ran; try again", clientId),
  definition: (error: ClientDefinitionError) =>
    problems.wrongValues(error.problems.map((p) => ({ error: "wrong_value", pos: p.field, desc: p.desc }))),
};

/** A client as the admin API shows it: never a secret or a digest. */
export function clientView(record: ClientRecord) {
  return {
    clientId: record.clientId,
    scopes: record.scopes,
    grantTypes: record.grantTypes,
    redirectUris: record.redirectUris,
    postLogoutRedirectUris: record.postLogoutRedirectUris,
    resources: record.resources,
    exchangeFrom: record.exchangeFrom,
    public: record.public,
    firstParty: record.firstParty,
    idTokenSignedResponseAlg: record.idTokenSignedResponseAlg,
    dpopBoundAccessTokens: record.dpopBoundAccessTokens,
    ...(record.backchannelLogoutUri !== undefined && { backchannelLogoutUri: record.backchannelLogoutUri }),
    trustRelayedAddress: record.trustRelayedAddress,
    requirePushedAuthorizationRequests: record.requirePushedAuthorizationRequests,
    hasRestPassword: record.hasRestPassword,
    bootstrap: record.bootstrap,
    ...(record.registration !== undefined && { registration: record.registration }),
    ...(record.expiresAt !== undefined && { expiresAt: record.expiresAt }),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

function definitionOf(body: NewClientBody): ClientDefinition {
  return { ...body, clientId: body.clientId ?? newClientId() };
}

/**
 * Refuses what `caller` may not do to a client that has `before` (undefined: a new one)
 * and would have `after`. A new client under the caller's own id would re-create it.
 */
function checkAuthority(caller: ClientAdministrator, clientId: string, before?: ClientPowers, after?: ClientPowers) {
  const widensItself = before === undefined || (after !== undefined && widens(before, after));
  if (clientId === caller.clientId && widensItself) throw clientProblems.ownClient(clientId);
  const missing = missingPermissions(caller, ...[before, after].filter((c) => c !== undefined));
  if (missing.length > 0) throw clientProblems.notHeld(missing);
}

/** Registers a client; a confidential one gets a generated secret, answered here once. */
export async function createClient(
  store: ClientRepository,
  body: NewClientBody,
  caller: ClientAdministrator,
  alsoWrite: AlsoWrite,
) {
  const def = definitionOf(body);
  try {
    const found = clientDefinitionProblems(def);
    if (found.length > 0) throw new ClientDefinitionError(found);
    const { scopes, grantTypes = [], resources = [], exchangeFrom = [] } = def;
    const { firstParty = false, trustRelayedAddress = false } = def;
    const powers = { scopes, grantTypes, resources, exchangeFrom, firstParty, trustRelayedAddress };
    checkAuthority(caller, def.clientId, undefined, powers);
    const { record, secret } = await registerClient(store, def, false, alsoWrite(def.clientId));
    return { ...clientView(record), ...(!record.public && { clientSecret: secret }) };
  } catch (error) {
    if (error instanceof ClientDefinitionError) throw clientProblems.definition(error);
    if (error instanceof ClientExistsError) throw clientProblems.clientExists(def.clientId);
    throw error;
  }
}

export async function readClient(store: ClientRepository, clientId: string) {
  const record = await store.get(clientId);
  if (!record) throw clientProblems.unknownClient(clientId);
  return clientView(record);
}

/** A page in id order; `next` (the last id) continues it while others may follow. */
export async function listClients(store: ClientRepository, limit: number | undefined, after: string | undefined) {
  const { clients, more } = await store.page(limit ?? LIST_LIMITS.defaultLimit, after);
  const next = more ? clients.at(-1)?.clientId : undefined;
  return { clients: clients.map(clientView), ...(next !== undefined && { next }) };
}

/**
 * Reads the client, lets `attempt` check it and write guarded by the revision read; an
 * attempt that answers undefined was overtaken by another change, and reads again.
 */
async function guardedByRevision<T>(
  store: ClientRepository,
  clientId: string,
  attempt: (snapshot: ClientSnapshot) => Promise<T | undefined>,
): Promise<T> {
  for (let tries = 1; tries <= CHANGE_ATTEMPTS; tries++) {
    const snapshot = await store.getForChange(clientId);
    if (!snapshot) throw clientProblems.unknownClient(clientId);
    if (snapshot.record.bootstrap) throw clientProblems.bootstrapClient(clientId);
    const done = await attempt(snapshot);
    if (done !== undefined) return done;
  }
  throw clientProblems.changedConcurrently(clientId);
}

/**
 * Replaces the fields sent, the others stay. The whole client is checked as it would be
 * stored, so the write is guarded by the revision read: a change that overtook this one
 * makes it read and check again.
 */
export async function changeClient(
  store: ClientRepository,
  clientId: string,
  change: ClientChange,
  caller: ClientAdministrator,
  alsoWrite: AlsoWrite,
) {
  const sent: ClientChange = Object.fromEntries(
    CHANGEABLE_FIELDS.filter((f) => f in change).map((f) => [f, change[f]]),
  );
  if (sent.scopes) sent.scopes = clientPermissions(sent.scopes);
  return guardedByRevision(store, clientId, async ({ record, revision }) => {
    const next: ClientRecord = { ...record, ...sent, updatedAt: Math.floor(Date.now() / 1000) };
    if (next.backchannelLogoutUri === "") delete next.backchannelLogoutUri;
    const found = clientDefinitionProblems(next);
    if (found.length > 0) throw clientProblems.definition(new ClientDefinitionError(found));
    checkAuthority(caller, clientId, record, next);
    const update = { ...sent, updatedAt: next.updatedAt };
    return (await store.update(clientId, update, { revision }, alsoWrite(clientId))) ? clientView(next) : undefined;
  });
}

/**
 * A new generated secret, answered once; the old one stops matching with this write
 * (warm functions that keep client records see it within clients.cacheSeconds). Whoever
 * holds the secret holds the client's permissions, so the caller must hold them too.
 */
export async function rotateClientSecret(
  store: ClientRepository,
  clientId: string,
  caller: ClientAdministrator,
  alsoWrite: AlsoWrite,
) {
  return guardedByRevision(store, clientId, async ({ record, revision }) => {
    if (record.public) throw clientProblems.publicClient(clientId);
    checkAuthority(caller, clientId, record, record);
    const secret = generateSecret();
    const update = { secretHash: digestSecret(secret), updatedAt: Math.floor(Date.now() / 1000) };
    const written = await store.update(clientId, update, { revision }, alsoWrite(clientId));
    return written ? { clientId, clientSecret: secret } : undefined;
  });
}

/** Deletes a client no stronger than the caller: a stronger one is a stronger administrator's to remove. */
export async function deleteClient(
  store: ClientRepository,
  clientId: string,
  caller: ClientAdministrator,
  alsoWrite: AlsoWrite,
): Promise<void> {
  await guardedByRevision(store, clientId, async ({ record, revision }) => {
    checkAuthority(caller, clientId, record, record);
    return (await store.delete(clientId, { revision }, alsoWrite(clientId))) || undefined;
  });
}

/** What a change's security event says of who changed the client (interface §4.17, 6); `prms` never a value. */
export type ClientChangeEvent = AdminChangeEvent;

export interface ClientDeps {
  clients: ClientRepository;
  events: Pick<SecurityEventLog, "putItem">;
}

export type ClientUseCases = ReturnType<typeof clientUseCases>;

/** The admin API's clients calls; every change commits with its security event, kept with the client. */
export function clientUseCases(deps: ClientDeps) {
  const recorded =
    (event: ClientChangeEvent): AlsoWrite =>
    (changed) => [deps.events.putItem({ ...event, sbj: changed, sbjType: "its", ts: Date.now(), result: "ok" })];
  return {
    create: (body: NewClientBody, caller: ClientAdministrator, event: ClientChangeEvent) =>
      createClient(deps.clients, body, caller, recorded(event)),
    list: (limit: number | undefined, after: string | undefined) => listClients(deps.clients, limit, after),
    read: (clientId: string) => readClient(deps.clients, clientId),
    change: (clientId: string, change: ClientChange, caller: ClientAdministrator, event: ClientChangeEvent) =>
      changeClient(deps.clients, clientId, change, caller, recorded(event)),
    rotateSecret: (clientId: string, caller: ClientAdministrator, event: ClientChangeEvent) =>
      rotateClientSecret(deps.clients, clientId, caller, recorded(event)),
    remove: (clientId: string, caller: ClientAdministrator, event: ClientChangeEvent) =>
      deleteClient(deps.clients, clientId, caller, recorded(event)),
  };
}
