import type { PartyKind } from "./parties";

/**
 * The rights catalogue (interface §2.4, 4.16): which right names exist and which kinds of
 * subject and object each applies to. The four names of interface §2.4 are built in: they
 * live in code, so every stack has them without seeding, and they cannot be deleted
 * (the subordinate password change relies on change_password).
 */

export const RIGHT_NAME_PATTERN = "^[A-Za-z][A-Za-z0-9_.-]{0,63}$";

export interface RightDefinition {
  name: string;
  description: string;
  subjectTypes: PartyKind[];
  objectTypes: PartyKind[];
  builtin: boolean;
}

export const BUILTIN_RIGHTS: readonly RightDefinition[] = [
  {
    name: "change_password",
    description: "The subject may set the password of the object account (interface §4.2).",
    subjectTypes: ["user"],
    objectTypes: ["user"],
    builtin: true,
  },
  {
    name: "ORG_ADMIN",
    description: "The subject administers the object organization (group).",
    subjectTypes: ["user", "its"],
    objectTypes: ["grps"],
    builtin: true,
  },
  {
    name: "APP_ADMIN",
    description: "The subject administers the object application.",
    subjectTypes: ["user", "its"],
    objectTypes: ["its"],
    builtin: true,
  },
  {
    name: "SYS_MON",
    description: "The subject may monitor the object.",
    subjectTypes: ["user", "its"],
    objectTypes: ["user", "grps", "its"],
    builtin: true,
  },
];

const builtinByName = new Map(BUILTIN_RIGHTS.map((r) => [r.name, r]));

export function builtinRight(name: string): RightDefinition | undefined {
  return builtinByName.get(name);
}

export function appliesTo(definition: RightDefinition, subject: PartyKind, object: PartyKind): boolean {
  return definition.subjectTypes.includes(subject) && definition.objectTypes.includes(object);
}
