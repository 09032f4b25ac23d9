import type { PendingWrite } from "../unit-of-work";
import type { ResourceDefinition, ResourceRecord } from "./resource";

/** The registered protected resources: a small catalogue, read by URI. */
export interface ResourceRepository {
  get(uri: string): Promise<ResourceRecord | undefined>;
  list(): Promise<ResourceRecord[]>;
  /** False when one with this URI exists (nothing written); commits with `alsoWrite` (its security event). */
  create(record: ResourceRecord, alsoWrite: PendingWrite[]): Promise<boolean>;
  /** False when there is none with this URI (nothing written). */
  replace(def: ResourceDefinition, updatedAt: number, alsoWrite: PendingWrite[]): Promise<boolean>;
  /** False when there was none with this URI. */
  remove(uri: string, alsoWrite: PendingWrite[]): Promise<boolean>;
}
