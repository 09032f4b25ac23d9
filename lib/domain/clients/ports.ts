import type { PendingWrite } from "../unit-of-work";
import type { ClientChange, ClientRecord, ClientRegistration, ClientSecrets } from "./client";

export class ClientExistsError extends Error {
  constructor(readonly clientId: string) {
    super(`client ${clientId} already exists`);
    this.name = "ClientExistsError";
  }
}

/** A client as read for a change: the record and the revision every write replaces. */
export interface ClientSnapshot {
  record: ClientRecord;
  /** Opaque; "" for a client stored before revisions were kept. */
  revision: string;
  /** A registered client's (RFC 7592): what its registration access token and its secret must match. */
  registrationTokenHash?: string;
  secretHash?: string;
}

/**
 * What must still hold of the stored client for a write to go through; checked by the
 * write itself, so nothing read earlier can be stale. The client must always exist.
 */
export interface ClientGuard {
  /** Unchanged since it was read with this revision. */
  revision?: string;
  /** Not the bootstrap client. */
  notBootstrap?: true;
  /** A confidential client: it holds a secret. */
  confidential?: true;
}

/** A change to write: the fields of the record, a new secret digest, and when. */
/** The fields to write; an empty string removes its field (a setting turned off). */
export type ClientUpdate = ClientChange & { secretHash?: string; registration?: ClientRegistration; updatedAt: number };

/** Applications (OAuth clients). Secret hashes are read only by `getWithSecrets` and, for RFC 7592, `getForChange`. */
export interface ClientRepository {
  /**
   * Writes a client; `overwrite` false refuses to replace an existing one (ClientExistsError).
   * `alsoWrite` commits with it, all or none.
   */
  save(record: ClientRecord, secrets: ClientSecrets, overwrite: boolean, alsoWrite?: PendingWrite[]): Promise<void>;
  /** The public record (scopes, redirect URIs), without secret hashes. */
  get(clientId: string): Promise<ClientRecord | undefined>;
  /** The public records of those of `clientIds` that exist, by id: one read for up to 100. */
  getMany(clientIds: string[]): Promise<Map<string, ClientRecord>>;
  /** The public record and its revision, for a change guarded by it. */
  getForChange(clientId: string): Promise<ClientSnapshot | undefined>;
  /** For client authentication only: the record with its secret hashes. */
  getWithSecrets(clientId: string): Promise<(ClientRecord & ClientSecrets) | undefined>;
  list(): Promise<ClientRecord[]>;
  /** Up to `limit` clients in id order, after the id `after`; `more` when others follow. */
  page(limit: number, after?: string): Promise<{ clients: ClientRecord[]; more: boolean }>;
  /** Writes `update` with `alsoWrite`, all or none; false when the client is gone or `guard` failed. */
  update(clientId: string, update: ClientUpdate, guard: ClientGuard, alsoWrite: PendingWrite[]): Promise<boolean>;
  /** False when there was no such client or `guard` failed; `alsoWrite` commits with the deletion. */
  delete(clientId: string, guard?: ClientGuard, alsoWrite?: PendingWrite[]): Promise<boolean>;
  /**
   * Writes a client that registered itself (RFC 7591) with what let it in (`admission`) and
   * `alsoWrite`, all or none; false when the admission was refused.
   */
  register(
    record: ClientRecord,
    secrets: ClientSecrets,
    admission: PendingWrite,
    alsoWrite: PendingWrite[],
  ): Promise<boolean>;
  /** A registered client was used: it stays until `expiresAt`, if it still exists. */
  keepAlive(clientId: string, expiresAt: number): Promise<void>;
}

/** What lets a client register itself (RFC 7591): an initial access token, or the address's hourly allowance. */
export interface RegistrationAdmissions {
  /** Stores an initial access token's digest, good for `uses` registrations until `expiresAt` (epoch seconds). */
  issueInitialToken(digest: string, uses: number, expiresAt: number, now: number): Promise<void>;
  /** One use of an initial access token, refused when it is unknown, used up or expired. */
  useInitialToken(digest: string, now: number): PendingWrite;
  /** One more registration from `address` this hour, refused past `max`. */
  countFromAddress(address: string, max: number, now: number): PendingWrite;
}

/** Dynamic client ids (interface §4.4): released in advance, bound to one account at registration. */
export interface DynamicClientRepository {
  /** Releases `count` new free ids for `app`. */
  release(app: string, count: number): Promise<string[]>;
  /** Binds a free id to an account, in the commit that creates the account. */
  bindItem(clientId: string, sub: string, now: number): PendingWrite;
}
