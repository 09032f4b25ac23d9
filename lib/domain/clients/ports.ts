import type { PendingWrite } from "../unit-of-work";
import type { ClientRecord, ClientSecrets } from "./client";

export class ClientExistsError extends Error {
  constructor(readonly clientId: string) {
    super(`client ${clientId} already exists`);
    this.name = "ClientExistsError";
  }
}

/** Applications (OAuth clients). Secret hashes are read only by `getWithSecrets`. */
export interface ClientRepository {
  /** Writes a client; `overwrite` false refuses to replace an existing one (ClientExistsError). */
  save(record: ClientRecord, secrets: ClientSecrets, overwrite: boolean): Promise<void>;
  /** The public record (scopes, redirect URIs), without secret hashes. */
  get(clientId: string): Promise<ClientRecord | undefined>;
  /** For client authentication only: the record with its secret hashes. */
  getWithSecrets(clientId: string): Promise<(ClientRecord & ClientSecrets) | undefined>;
  list(): Promise<ClientRecord[]>;
  /** False when there was no such client. */
  delete(clientId: string): Promise<boolean>;
}

/** Dynamic client ids (interface §4.4): released in advance, bound to one account at registration. */
export interface DynamicClientRepository {
  /** Releases `count` new free ids for `app`. */
  release(app: string, count: number): Promise<string[]>;
  /** Binds a free id to an account, in the commit that creates the account. */
  bindItem(clientId: string, sub: string, now: number): PendingWrite;
}
