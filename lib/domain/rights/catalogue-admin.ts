import { BUILTIN_RIGHTS, builtinRight, type RightDefinition } from "./catalogue";
import type { PartyKind } from "./parties";
import { RightDefinitionExistsError, type RightDefinitionRepository } from "./ports";
import { rightProblems } from "./problems";

/** Body of POST /svc/admin/api/v3/rights, after schema validation. */
export interface NewRightBody {
  name: string;
  description?: string;
  subjectTypes: PartyKind[];
  objectTypes: PartyKind[];
}

/** Built-in rights first, then the stored ones by name. */
export async function listRightDefinitions(store: RightDefinitionRepository): Promise<RightDefinition[]> {
  const stored = await store.list();
  return [...BUILTIN_RIGHTS, ...stored.sort((a, b) => a.name.localeCompare(b.name))];
}

export async function readRightDefinition(store: RightDefinitionRepository, name: string): Promise<RightDefinition> {
  const found = builtinRight(name) ?? (await store.get(name));
  if (!found) throw rightProblems.noSuchDefinition(name);
  return found;
}

export async function createRightDefinition(
  store: RightDefinitionRepository,
  body: NewRightBody,
): Promise<RightDefinition> {
  if (builtinRight(body.name)) throw rightProblems.rightExists(body.name);
  const definition: RightDefinition = {
    name: body.name,
    description: body.description ?? "",
    subjectTypes: [...new Set(body.subjectTypes)],
    objectTypes: [...new Set(body.objectTypes)],
    builtin: false,
  };
  try {
    await store.create(definition, Math.floor(Date.now() / 1000));
  } catch (error) {
    if (error instanceof RightDefinitionExistsError) throw rightProblems.rightExists(body.name);
    throw error;
  }
  return definition;
}

/**
 * Removes a definition: it can no longer be assigned; grants made earlier stay, are
 * listed and can be revoked (revoking an existing grant needs no catalogue entry).
 */
export async function deleteRightDefinition(store: RightDefinitionRepository, name: string): Promise<void> {
  if (builtinRight(name)) throw rightProblems.builtinRight(name);
  if (!(await store.delete(name))) throw rightProblems.noSuchDefinition(name);
}
