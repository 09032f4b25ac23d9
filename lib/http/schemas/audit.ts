import type { JsonSchema } from "../route";
import { subjectItemParams } from "./security";

export const auditQuery: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    rql: {
      type: "string",
      maxLength: 300,
      description: "and(ge(ts,<ms>),le(ts,<ms>),limit(<n>)); each part optional; limit 1-1000 (default 100)",
    },
    ua: {
      type: "string",
      enum: ["raw", "parsed", "none"],
      description: "User-Agent as sent (default), parsed, or left out",
    },
  },
};

export const eventList: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["sbj", "ts", "type", "cId"],
    properties: {
      sbj: { type: "string" },
      ts: { type: "integer", description: "milliseconds since the epoch" },
      type: { type: "string" },
      cId: { type: "string", description: "the application" },
      ip: { type: "string" },
      ua: { description: "string (raw) or {browser, os, deviceType, device} (ua=parsed)" },
      sid: { type: "string" },
      result: { type: "string", description: "ok, or the error that refused the call" },
      prms: { type: "object" },
    },
  },
};

export const consentList: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "updated", "client_id", "scopes"],
    properties: {
      id: { type: "string" },
      updated: { type: "integer", description: "milliseconds since the epoch of the latest grant" },
      client_id: { type: "string" },
      scopes: { type: "array", items: { type: "string" } },
    },
  },
};

export const consentParams = subjectItemParams("consent id from the list");
