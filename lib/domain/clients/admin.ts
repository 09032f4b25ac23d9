import type { PendingWrite } from "../unit-of-work";
import {
  buildClient,
  type ClientChange,
  type ClientDefinition,
  type ClientProblem,
  type ClientRecord,
  clientDefinitionProblems,
} from "./client";
import type { ClientRepository } from "./ports";

export class ClientDefinitionError extends Error {
  constructor(readonly problems: ClientProblem[]) {
    super(problems.map((p) => p.desc).join("; "));
    this.name = "ClientDefinitionError";
  }
}

/**
 * Registers an application. Returns the client secret, which is shown once: only its
 * digest is stored. `overwrite` replaces an existing client (bootstrap on every start);
 * `alsoWrite` rides in the same write (the admin API's security event).
 */
export async function registerClient(
  store: ClientRepository,
  def: ClientDefinition,
  overwrite = false,
  alsoWrite: PendingWrite[] = [],
): Promise<{ clientId: string; secret: string; record: ClientRecord }> {
  const found = clientDefinitionProblems(def);
  if (found.length > 0) throw new ClientDefinitionError(found);
  const { record, secrets, secret } = buildClient(def, Math.floor(Date.now() / 1000));
  await store.save(record, secrets, overwrite, alsoWrite);
  return { clientId: record.clientId, secret, record };
}

/**
 * An operator's change (`svc-admin clients update`): the root of trust, so no authority is
 * asked; the whole client is checked as it would be stored, and the write is guarded by the
 * revision read. Undefined when there is no such client or it changed meanwhile.
 */
export async function changeClientAsOperator(
  store: ClientRepository,
  clientId: string,
  change: ClientChange,
): Promise<ClientRecord | undefined> {
  const snapshot = await store.getForChange(clientId);
  if (!snapshot) return undefined;
  const next: ClientRecord = { ...snapshot.record, ...change, updatedAt: Math.floor(Date.now() / 1000) };
  const found = clientDefinitionProblems(next);
  if (found.length > 0) throw new ClientDefinitionError(found);
  const written = await store.update(
    clientId,
    { ...change, updatedAt: next.updatedAt },
    { revision: snapshot.revision },
    [],
  );
  return written ? next : undefined;
}
