import type { SecurityEventLog } from "../audit/ports";
import type { AdminChangeEvent } from "../audit/security-event";
import { ApiError, problems } from "../errors";
import type { PendingWrite } from "../unit-of-work";
import type { ResourceRepository } from "./ports";
import {
  type ResourceDefinition,
  type ResourceRecord,
  resourceDefinitionProblems,
  resourceId,
  resourceUriOf,
} from "./resource";

/**
 * The protected resources of the admin API (docs/sign-in.md "Protected resources"): an
 * operator registers a resource once, and every client it admits may ask for its tokens.
 * Every change commits with its security event, kept with the calling application.
 */

const processError = (status: number, error: string, desc: string, uri: string) =>
  new ApiError(status, "process_error", error, desc, { params: { uri } });

export const resourceProblems = {
  unknownResource: (uri: string) => processError(404, "unknown_resource", "no resource has this id", uri),
  resourceExists: (uri: string) => processError(409, "resource_exists", "a resource with this URI exists", uri),
};

/** A resource as the admin API shows it, with the id its paths take. */
export function resourceView(record: ResourceRecord) {
  return { id: resourceId(record.uri), ...record };
}

/** Who changed a resource and from where (interface §6); `prms` never a value beyond the URI. */
export type ResourceChangeEvent = AdminChangeEvent;

export interface ResourceDeps {
  resources: ResourceRepository;
  events: Pick<SecurityEventLog, "putItem">;
  /** The management API's identifier (the issuer): not a resource to register. */
  ownResource: string;
}

export type ResourceUseCases = ReturnType<typeof resourceUseCases>;

export function resourceUseCases(deps: ResourceDeps) {
  const recorded = (event: ResourceChangeEvent, uri: string): PendingWrite[] => [
    deps.events.putItem({
      ...event,
      sbj: event.cId ?? "unknown",
      sbjType: "its",
      ts: Date.now(),
      result: "ok",
      prms: { ...event.prms, resource: uri },
    }),
  ];
  const checked = (def: ResourceDefinition) => {
    const found = resourceDefinitionProblems(def, deps.ownResource);
    if (found.length > 0)
      throw problems.wrongValues(found.map((p) => ({ error: "wrong_value", pos: p.field, desc: p.desc })));
    return def;
  };
  const read = async (id: string) => {
    const uri = resourceUriOf(id);
    const record = await deps.resources.get(uri);
    if (!record) throw resourceProblems.unknownResource(uri);
    return record;
  };

  return {
    async create(def: ResourceDefinition, event: ResourceChangeEvent) {
      const now = Math.floor(Date.now() / 1000);
      const record: ResourceRecord = { ...checked(def), createdAt: now, updatedAt: now };
      if (!(await deps.resources.create(record, recorded(event, def.uri))))
        throw resourceProblems.resourceExists(def.uri);
      return resourceView(record);
    },

    list: async () => ({ resources: (await deps.resources.list()).map(resourceView) }),

    read: async (id: string) => resourceView(await read(id)),

    /** Every field but the URI is replaced: tokens already issued keep the scopes they carry. */
    async replace(id: string, change: Omit<ResourceDefinition, "uri">, event: ResourceChangeEvent) {
      const uri = resourceUriOf(id);
      const def = checked({ ...change, uri });
      if (!(await deps.resources.replace(def, Math.floor(Date.now() / 1000), recorded(event, uri))))
        throw resourceProblems.unknownResource(uri);
      return resourceView(await read(id));
    },

    async remove(id: string, event: ResourceChangeEvent) {
      const uri = resourceUriOf(id);
      if (!(await deps.resources.remove(uri, recorded(event, uri)))) throw resourceProblems.unknownResource(uri);
    },
  };
}
