import { ApiError } from "../errors";

/** Errors of the organization routes (docs/organizations.md) beyond the group and rights ones. */
export const orgProblems = {
  lastAdmin: (orgId: string) =>
    new ApiError(
      409,
      "process_error",
      "last_org_admin",
      "the organization would be left without an ORG_ADMIN; give another member ORG_ADMIN first",
      { params: { orgId }, v2Code: "last_org_admin" },
    ),

  notForGroups: (right: string) =>
    new ApiError(400, "process_error", "unknown_right", `right ${right} does not apply to a user over a group`, {
      params: { right },
      v2Code: "unknown_right",
    }),
};
