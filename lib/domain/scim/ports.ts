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

/**
 * A user as the organization's provider provisioned it: the SCIM attributes it sent (less
 * `id`, `meta` and `schemas`), the account it stands for, and the revision its ETag names.
 */
export interface ScimUserRecord {
  orgId: string;
  /** The account's sub: the resource's `id`. */
  sub: string;
  userName: string;
  attributes: Record<string, unknown>;
  version: number;
  /** Milliseconds since the epoch. */
  created: number;
  lastModified: number;
}

/** Why a SCIM user write was refused: the userName is another user's, or the record moved on or went. */
export class ScimUserRefusedError extends Error {
  constructor(readonly reason: "userName" | "stale") {
    super(`scim user write refused: ${reason}`);
    this.name = "ScimUserRefusedError";
  }
}

export interface ScimUserPage {
  records: ScimUserRecord[];
  /** The last record's sub when more may follow. */
  next?: string;
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

  user(orgId: string, sub: string): Promise<ScimUserRecord | undefined>;
  /** The user of a userName, compared case-insensitively (RFC 7643 caseExact false). */
  userByName(orgId: string, userName: string): Promise<ScimUserRecord | undefined>;
  /** A page of the organization's provisioned users in sub order, from after `after`. */
  users(orgId: string, limit: number, after?: string): Promise<ScimUserPage>;
  /** A new user's record and its userName's claim, for the account's creation commit. */
  newUserItems(record: ScimUserRecord): PendingWrite[];
  /** Writes `next` if the stored record is still `previous` (ScimUserRefusedError). */
  replaceUser(previous: ScimUserRecord, next: ScimUserRecord): Promise<void>;
  /** Deletes the record and its userName's claim if the stored record is still `record` (ScimUserRefusedError). */
  removeUser(record: ScimUserRecord): Promise<void>;
  /** The same deletion, for another commit (the membership's removal). */
  removeUserItems(record: ScimUserRecord): PendingWrite[];
}
