import { ApiError } from "../errors";

/**
 * Errors of the group calls (interface §7.3 codes; SPEC leaves their statuses open):
 * group_not_found 404 (the addressed group), user_not_found 400 (an account named in the
 * body), some_members_already_in_group and some_members_not_in_group 409 (the group's
 * state refuses the change), group_already_exists 409.
 */

const error = (status: number, code: string, desc: string, params: Record<string, unknown>) =>
  new ApiError(status, "process_error", code, desc, { params, v2Code: code });

export const groupProblems = {
  notFound: (id: string, profile: string) =>
    error(404, "group_not_found", "no group has this id in this profile", { grpId: id, profile }),

  exists: (id: string, profile: string, deleting: boolean) =>
    error(
      409,
      "group_already_exists",
      deleting
        ? "a group with this id is being deleted; repeat its DELETE to finish, then create it again"
        : "a group with this id already exists in this profile",
      { grpId: id, profile },
    ),

  usersNotFound: (subjectIds: string[]) =>
    error(400, "user_not_found", "no account has these subject ids", { subjectIds }),

  alreadyMembers: (subjectIds: string[]) =>
    error(409, "some_members_already_in_group", "these accounts are already members of the group", { subjectIds }),

  notMembers: (subjectIds: string[]) =>
    error(409, "some_members_not_in_group", "these accounts are not members of the group", { subjectIds }),
};
