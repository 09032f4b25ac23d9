import { servedRoutes } from "../lib/compiled/groups-routes";
import {
  addMembers,
  changeGroup,
  createGroup,
  deleteGroup,
  type GroupBody,
  type GroupDeps,
  listGroups,
  listMembers,
  readGroup,
  removeMembers,
} from "../lib/domain/groups/groups";
import { jsonResult } from "../lib/http/error-body";
import { createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

/** Groups (SPEC 4.8), v2: system permission svc_groups or the REST password. */

function deps(): GroupDeps {
  return { groups: services().groups, accounts: services().accountSearch };
}

type Members = Array<{ subjectId: string }>;

export const handler = createApiFunction("groups", servedRoutes, {
  "groups.get": async (call) =>
    jsonResult(200, await readGroup(deps(), call.query.profile, call.params.groupId, call.query.expand === "true")),

  "groups.list": async (call) =>
    jsonResult(200, await listGroups(deps(), call.query.profile, call.query.rql, call.query.expand === "true")),

  "groups.create": async (call) => jsonResult(201, await createGroup(deps(), call.body as GroupBody)),

  "groups.change": async (call) =>
    jsonResult(200, await changeGroup(deps(), call.query.profile, call.params.groupId, call.body as GroupBody)),

  "groups.delete": async (call) => {
    await deleteGroup(deps(), call.query.profile, call.params.groupId);
    return jsonResult(204, undefined);
  },

  "groups.members": async (call) =>
    jsonResult(200, await listMembers(deps(), call.query.profile, call.params.groupId, call.query.expand === "true")),

  "groups.members-add": async (call) =>
    jsonResult(200, await addMembers(deps(), call.query.profile, call.params.groupId, call.body as Members)),

  "groups.members-rm": async (call) =>
    jsonResult(200, await removeMembers(deps(), call.query.profile, call.params.groupId, call.body as Members)),
});
