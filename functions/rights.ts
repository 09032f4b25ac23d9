import { servedRoutes } from "../lib/compiled/rights-routes";
import {
  createRightDefinition,
  deleteRightDefinition,
  listRightDefinitions,
  type NewRightBody,
  readRightDefinition,
} from "../lib/domain/rights/catalogue-admin";
import { partyKey } from "../lib/domain/rights/parties";
import { type V2RightsBody, type V3RightsBody, v2Changes, v3Changes } from "../lib/domain/rights/requests";
import { changeRights, type GrantsRead, rightsOf, rightsOn } from "../lib/domain/rights/rights";
import type { AlongSession } from "../lib/http/along-session";
import { jsonResult } from "../lib/http/error-body";
import { userCallEvent } from "../lib/http/middleware/security-event";
import { createApiFunction } from "../lib/http/pipeline";
import { services } from "../lib/services";

/** A user token reads its own rights: the Query goes out with the session check. */
const grantsBesideSession: AlongSession = (caller) =>
  caller.params.subjectId === caller.sub
    ? { beside: () => services().rights.grantsOfParty({ kind: "user", id: caller.sub }) }
    : undefined;

/** Rights (SPEC 4.3) and the rights catalogue (SPEC 4.16). */
export const handler = createApiFunction(
  "rights",
  servedRoutes,
  {
    "rights.of-user": async (call) =>
      jsonResult(
        200,
        await rightsOf(
          services(),
          { kind: "user", id: call.params.subjectId },
          call.principal?.mode === "user" ? (call.alongSession as GrantsRead | undefined) : undefined,
        ),
      ),

    "rights.of-app": async (call) =>
      jsonResult(200, await rightsOf(services(), { kind: "its", id: call.params.appId })),

    "rights.on-user": async (call) =>
      jsonResult(200, await rightsOn(services(), { kind: "user", id: call.params.subjectId })),

    "rights.on-group": async (call) =>
      jsonResult(
        200,
        await rightsOn(services(), { kind: "grps", id: call.params.groupId, profile: call.query.objectExt }),
      ),

    "rights.on-app": async (call) =>
      jsonResult(200, await rightsOn(services(), { kind: "its", id: call.params.appId })),

    "rights.assign": async (call) => {
      await changeRights(services(), v3Changes(call.body as V3RightsBody, "assign"), { readAll: false });
      return jsonResult(204, undefined);
    },

    "rights.revoke": async (call) => {
      await changeRights(services(), v3Changes(call.body as V3RightsBody, "revoke"), { readAll: false });
      return jsonResult(204, undefined);
    },

    "rights.change": async (call) => {
      const caller = call.principal ?? { mode: "system" as const };
      const event = userCallEvent(call);
      const outcome = await changeRights(services(), v2Changes(call.body as V2RightsBody, caller), {
        readAll: true,
        alsoWrite: event ? [services().events.putItem(event)] : [],
      });
      return jsonResult(200, {
        rights: outcome.map((grant) => ({
          subject: partyKey(grant.subject),
          object: partyKey(grant.object),
          right: grant.right,
          tags: grant.tags,
        })),
      });
    },

    "rights.catalogue-list": async () => jsonResult(200, await listRightDefinitions(services().rightDefinitions)),

    "rights.catalogue-get": async (call) =>
      jsonResult(200, await readRightDefinition(services().rightDefinitions, call.params.name)),

    "rights.catalogue-create": async (call) =>
      jsonResult(201, await createRightDefinition(services().rightDefinitions, call.body as NewRightBody)),

    "rights.catalogue-delete": async (call) => {
      await deleteRightDefinition(services().rightDefinitions, call.params.name);
      return jsonResult(204, undefined);
    },
  },
  { alongSession: { "rights.of-user": grantsBesideSession } },
);
