import { ApiError } from "../errors";
import type { RightDefinition } from "./catalogue";
import type { Party, PartyKind } from "./parties";

/**
 * Errors of the rights calls (interface §7.2: 400 process_error with params right, userId,
 * grpId, rpId). On v2 (rights/change) each is a `validation_error` (interface §7.3).
 */

const processError = (error: string, desc: string, params: Record<string, unknown>, status = 400) =>
  new ApiError(status, "process_error", error, desc, { params, v2Code: "validation_error" });

export const rightProblems = {
  unknownRight: (right: string) => processError("unknown_right", "no right of this name in the catalogue", { right }),

  rightNotApplicable: (definition: RightDefinition, subject: PartyKind, object: PartyKind) =>
    processError(
      "unknown_right",
      `right ${definition.name} applies to subjects of kind ${definition.subjectTypes.join(" or ")} and objects of kind ${definition.objectTypes.join(" or ")}, not to a ${subject} subject and a ${object} object`,
      { right: definition.name, subjectType: subject, objectType: object },
    ),

  unknownParty: (party: Party) => {
    switch (party.kind) {
      case "user":
        return processError("unknown_user", "no account has this identifier", { userId: party.id });
      case "its":
        return processError("unknown_rp", "no application has this identifier", { rpId: party.id });
      case "grps":
        return processError("unknown_group", "no group has this identifier in this profile", {
          grpId: party.id,
          profile: party.profile,
        });
    }
  },

  tooManyChanges: (items: number, limit: number) =>
    new ApiError(
      400,
      "input_error",
      "too_many_changes",
      `one call may change at most ${limit} stored items (two per right, one per party and custom right checked, one for a user's security event); this one needs ${items}: split it`,
      { params: { items, limit }, v2Code: "validation_error" },
    ),

  changedConcurrently: () =>
    new ApiError(409, "process_error", "changed_concurrently", "the rights changed while this call ran; try again", {
      v2Code: "changed_concurrently",
    }),

  rightExists: (name: string) =>
    new ApiError(409, "process_error", "right_exists", "a right of this name is already in the catalogue", {
      params: { right: name },
    }),

  builtinRight: (name: string) =>
    new ApiError(400, "process_error", "builtin_right", "built-in rights cannot be deleted", {
      params: { right: name },
    }),

  noSuchDefinition: (name: string) =>
    new ApiError(404, "process_error", "unknown_right", "no right of this name in the catalogue", {
      params: { right: name },
    }),
};
