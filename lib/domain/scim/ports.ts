import type { OrgGuard } from "../organizations/ports";
import type { PendingWrite } from "../unit-of-work";

/**
 * An organization's SCIM connection (docs/scim.md): the bearer token its identity provider
 * presents, kept only as a digest. One token at a time; rotating replaces it at once.
 */
export interface ScimConnection {
  orgId: string;
  tokenDigest: string;
  /** The token's last four characters, so an admin can tell which one is configured. */
  tokenHint: string;
  createdAt: number;
  rotatedAt: number;
}

/** The resource types an organization's provider keeps here (RFC 7643 4). */
export type ScimResourceType = "User" | "Group";

/**
 * A resource as the organization's provider sent it: its attributes (less `id`, `meta`,
 * `schemas` and what is never kept), the name unique within its type (a user's userName,
 * a group's displayName) and the revision its ETag names. A user's id is its account's sub.
 */
export interface ScimRecord {
  orgId: string;
  id: string;
  name: string;
  attributes: Record<string, unknown>;
  version: number;
  /** Milliseconds since the epoch. */
  created: number;
  lastModified: number;
}

/** Why a SCIM write was refused: the name is another resource's, or the record moved on or went. */
export class ScimRecordRefusedError extends Error {
  constructor(readonly reason: "name" | "stale") {
    super(`scim write refused: ${reason}`);
    this.name = "ScimRecordRefusedError";
  }
}

export interface ScimPage {
  records: ScimRecord[];
  /** The last record's id when more may follow. */
  next?: string;
}

/** One resource type's records in the organization's partition. */
export interface ScimRecords {
  get(orgId: string, id: string): Promise<ScimRecord | undefined>;
  /** The record of a name, compared case-insensitively (RFC 7643: userName and displayName are caseExact false). */
  byName(orgId: string, name: string): Promise<ScimRecord | undefined>;
  /** A page in id order, from after `after`. */
  page(orgId: string, limit: number, after?: string): Promise<ScimPage>;
  /** Which of `ids` are records here: BatchGetItem, 100 at a time. */
  existing(orgId: string, ids: readonly string[]): Promise<Set<string>>;
  /** A new record and its name's claim, for a commit (a user's is its account's creation). */
  newItems(record: ScimRecord): PendingWrite[];
  /** Creates the record, with `alsoWrite` in the same commit (ScimRecordRefusedError: "name", or "stale" for `alsoWrite`). */
  create(record: ScimRecord, alsoWrite?: PendingWrite[]): Promise<void>;
  /** Writes `next` if the stored record is still `previous` (ScimRecordRefusedError). */
  replace(previous: ScimRecord, next: ScimRecord): Promise<void>;
  /** Deletes the record and its name's claim if the stored record is still `record` (ScimRecordRefusedError). */
  remove(record: ScimRecord): Promise<void>;
  /** The same deletion, for another commit (a user's membership's removal). */
  removeItems(record: ScimRecord): PendingWrite[];
}

export interface ScimRepository {
  connection(orgId: string): Promise<ScimConnection | undefined>;
  /** The organization whose connection holds this token digest: one GetItem. */
  orgOfToken(digest: string): Promise<string | undefined>;
  /**
   * Creates or replaces the connection's token, guarded like every organization change
   * (OrgChangeRefusedError): the old token stops working in the same transaction.
   */
  putConnection(connection: ScimConnection, replaced: ScimConnection | undefined, guard: OrgGuard): Promise<void>;
  /** False when there was none. */
  removeConnection(connection: ScimConnection, guard: OrgGuard): Promise<boolean>;
  users: ScimRecords;
  groups: ScimRecords;
}
