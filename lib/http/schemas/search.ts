import type { JsonSchema } from "../route";
import { accountView } from "./users";

/** SPEC 4.7 user search. */

export const searchQuery: JsonSchema = {
  type: "object",
  required: ["query"],
  properties: {
    query: {
      type: "string",
      minLength: 1,
      maxLength: 4000,
      description:
        "RQL: and, or, eq (also name=value, & and |), limit(count[,offset]); values string:<value>, with & | ( ) = < > , % percent-escaped",
    },
  },
};

const { meta: _meta, ...attrs } = accountView.properties as Record<string, JsonSchema>;

export const searchResults: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["instanceId", "attrs"],
    properties: {
      instanceId: { type: "string" },
      attrs: { type: "object", required: ["sub", "locked"], properties: attrs },
    },
  },
};
