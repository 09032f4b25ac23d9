import { type FieldProblem, problems } from "../errors";
import { type Party, partyIdProblem } from "./parties";
import type { RightChange } from "./plan";

/** Body of PUT and DELETE /svc/api/v3/rights (interface §4.3), after schema validation. */
export interface V3RightsBody {
  subject: string;
  subjectType?: "its";
  object: string;
  objectType?: "grps" | "its";
  /** The group's profile, as GET rights/on/grps takes it in `objectExt`. */
  objectExt?: string;
  rights: string[];
  tags?: string[];
}

/** One element of `update` or `delete` in POST /svc/api/v2/users/rights/change. */
export interface V2RightsEntry {
  subject: string;
  object: string;
  rights: string[];
  tags: string[];
}

export interface V2RightsBody {
  update: V2RightsEntry[];
  delete: V2RightsEntry[];
}

function checked(party: Party, pos: string, found: FieldProblem[]): Party {
  const problem = partyIdProblem(party);
  if (problem) found.push({ error: "wrong_value", pos, desc: `${pos} is ${problem}` });
  return party;
}

function objectOf(body: V3RightsBody, found: FieldProblem[]): Party {
  if (body.objectType === "its") return { kind: "its", id: body.object };
  if (body.objectType !== "grps") {
    if (body.objectExt !== undefined) {
      found.push({
        error: "wrong_value",
        pos: "objectExt",
        desc: "objectExt (the group's profile) is for objectType grps",
      });
    }
    return { kind: "user", id: body.object };
  }
  if (body.objectExt === undefined) {
    found.push({
      error: "required",
      pos: "objectExt",
      desc: "objectExt (the group's profile) is required with objectType grps",
    });
  }
  return { kind: "grps", id: body.object, profile: body.objectExt ?? "" };
}

/** The changes a v3 assignment or revocation asks for. DELETE without tags revokes the rights whole. */
export function v3Changes(body: V3RightsBody, kind: "assign" | "revoke"): RightChange[] {
  const found: FieldProblem[] = [];
  const subject = checked(
    body.subjectType === "its" ? { kind: "its", id: body.subject } : { kind: "user", id: body.subject },
    "subject",
    found,
  );
  const shapeProblems = found.length;
  const object = objectOf(body, found);
  // A missing or misplaced objectExt is reported alone, not again as a malformed object.
  if (found.length === shapeProblems) checked(object, "object", found);
  if (found.length > 0) throw problems.wrongValues(found);
  const tags = body.tags ?? [];
  return body.rights.map((right) =>
    kind === "assign"
      ? { subject, object, right, add: tags, remove: [] }
      : { subject, object, right, add: [], remove: tags, removeAll: body.tags === undefined },
  );
}

/**
 * Who may change what through rights/change with a user token (docs/interface.md §4.3):
 * only rights that involve the caller. It grants rights over its own account (it is the
 * object: its consent) and revokes rights it holds or gave over itself. It never grants
 * itself a right over another account: that would let anyone take any account over.
 */
function userEntryProblem(entry: V2RightsEntry, kind: "update" | "delete", sub: string | undefined, pos: string) {
  if (entry.object === sub) return undefined;
  if (entry.subject !== sub) {
    return {
      error: "wrong_value",
      pos: `${pos}.subject`,
      desc: "with a user token the subject must be the token's owner, or the object its own account",
    };
  }
  if (kind === "delete") return undefined;
  return {
    error: "wrong_value",
    pos: `${pos}.object`,
    desc: "a user token grants rights over its own account only; rights over another account come from a system token",
  };
}

/**
 * The changes of a v2 rights/change call. A user token changes only rights that involve
 * its own account (userEntryProblem); a system token (svc_rm_rights, or the REST
 * password) may only revoke, for any subject.
 */
export function v2Changes(body: V2RightsBody, caller: { mode: "user" | "system"; sub?: string }): RightChange[] {
  if (caller.mode === "system" && body.update.length > 0) {
    throw problems.badAccessToken("assigning rights through rights/change needs a user token with svc_user_rights");
  }
  const found: FieldProblem[] = [];
  const changes: RightChange[] = [];
  for (const [list, name] of [
    [body.update, "update"],
    [body.delete, "delete"],
  ] as const) {
    list.forEach((entry, i) => {
      const refused = caller.mode === "user" && userEntryProblem(entry, name, caller.sub, `${name}.${i}`);
      if (refused) found.push(refused);
      const subject = checked({ kind: "user", id: entry.subject }, `${name}.${i}.subject`, found);
      const object = checked({ kind: "user", id: entry.object }, `${name}.${i}.object`, found);
      for (const right of entry.rights) {
        changes.push(
          name === "update"
            ? { subject, object, right, add: entry.tags, remove: [] }
            : { subject, object, right, add: [], remove: entry.tags },
        );
      }
    });
  }
  if (found.length > 0) throw problems.wrongValues(found);
  return changes;
}
