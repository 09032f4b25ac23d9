import { ApiError } from "../errors";
import type { RqlError } from "./rql";

/** 400 input errors of RQL parameters (`query` of user search, `rql` of group lists). */
const inputError = (error: string, pos: string, desc: string, params?: Record<string, unknown>) =>
  new ApiError(400, "input_error", error, desc, { pos, ...(params && { params }), v2Code: "validation_error" });

export const searchProblems = {
  malformed: (pos: string, error: RqlError) =>
    inputError("wrong_query", pos, `${error.message} (at character ${error.position})`, {
      position: error.position,
    }),

  empty: (pos: string) =>
    inputError(
      "wrong_query",
      pos,
      "the query is empty: give at least one condition such as email=string:a@example.com",
    ),

  unknownAttribute: (pos: string, name: string, known: readonly string[]) =>
    inputError(
      "unknown_attribute",
      pos,
      `${name} is not an attribute you can search by; these are: ${known.join(", ")}`,
      {
        attribute: name,
      },
    ),

  notIndexed: (pos: string, names: string[], indexed: readonly string[]) =>
    inputError(
      "not_indexed",
      pos,
      `${[...new Set(names)].join(", ")} ${names.length > 1 ? "are" : "is"} not indexed: combine with and() an equality on an indexed attribute (${indexed.join(", ")})`,
      { attributes: [...new Set(names)] },
    ),

  tooMany: (pos: string, attribute: string, cap: number) =>
    inputError(
      "too_many_results",
      pos,
      `more than ${cap} accounts match on ${attribute}: narrow the query with and()`,
      { attribute, limit: cap },
    ),
};
