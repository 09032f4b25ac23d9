import { buildClient, type ClientDefinition, clientDefinitionProblems } from "./client";
import type { ClientRepository } from "./ports";

export class ClientDefinitionError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "ClientDefinitionError";
  }
}

/**
 * Registers an application. Returns the client secret, which is shown once: only its
 * digest is stored. `overwrite` replaces an existing client (bootstrap on every start).
 */
export async function registerClient(
  store: ClientRepository,
  def: ClientDefinition,
  overwrite = false,
): Promise<{ clientId: string; secret: string }> {
  const found = clientDefinitionProblems(def);
  if (found.length > 0) throw new ClientDefinitionError(found);
  const { record, secrets, secret } = buildClient(def, Math.floor(Date.now() / 1000));
  await store.save(record, secrets, overwrite);
  return { clientId: record.clientId, secret };
}
