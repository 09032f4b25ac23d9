import { SUB_PATTERN } from "../accounts/new-account";
import { BUILT_IN_CLIENT_IDS, CLIENT_ID_PATTERN } from "../clients/client";
import { GROUP_ID_PATTERN, PROFILE_PATTERN } from "../groups/group";

/**
 * The parties of a right (interface §2.4): subjects are users or applications; objects are
 * users, groups or applications. Their keys in responses: a user is its subject id, an
 * application `its|<app_id>`, a group `grps|<group_id>|<profile>`. None of the id
 * patterns admits "|" or "#", so a key names exactly one party and no key is a prefix
 * of another once a separator follows it.
 */

export type PartyKind = "user" | "its" | "grps";

export type Party =
  | { kind: "user"; id: string }
  | { kind: "its"; id: string }
  | { kind: "grps"; id: string; profile: string };

export const SUBJECT_KINDS: readonly PartyKind[] = ["user", "its"];
export const OBJECT_KINDS: readonly PartyKind[] = ["user", "grps", "its"];

const USER_ID = new RegExp(SUB_PATTERN);
const GROUP_ID = new RegExp(GROUP_ID_PATTERN);
const PROFILE = new RegExp(PROFILE_PATTERN);

export function partyKey(party: Party): string {
  switch (party.kind) {
    case "user":
      return party.id;
    case "its":
      return `its|${party.id}`;
    case "grps":
      return `grps|${party.id}|${party.profile}`;
  }
}

/** The party a response key names, or undefined when it is not a well-formed key. */
export function partyOfKey(key: string): Party | undefined {
  const parts = key.split("|");
  if (parts.length === 1) return USER_ID.test(key) ? { kind: "user", id: key } : undefined;
  if (parts[0] === "its" && parts.length === 2 && CLIENT_ID_PATTERN.test(parts[1]))
    return { kind: "its", id: parts[1] };
  if (parts[0] === "grps" && parts.length === 3 && GROUP_ID.test(parts[1]) && PROFILE.test(parts[2])) {
    return { kind: "grps", id: parts[1], profile: parts[2] };
  }
  return undefined;
}

/** Whether an id is well formed for its kind (the schema checks shapes; this checks per kind). */
export function partyIdProblem(party: Party): string | undefined {
  if (party.kind === "user" && !USER_ID.test(party.id)) return "not a subject id";
  if (party.kind === "its" && !CLIENT_ID_PATTERN.test(party.id)) return "not an application id";
  if (party.kind === "grps") {
    if (!GROUP_ID.test(party.id)) return "not a group id";
    if (!PROFILE.test(party.profile)) return "not a group profile";
  }
  return undefined;
}

/** The service's own applications (the consoles) exist in code, with no record to check: the admin console's operators hold rights over it. */
export function isBuiltInParty(party: Party): boolean {
  return party.kind === "its" && (Object.values(BUILT_IN_CLIENT_IDS) as string[]).includes(party.id);
}
