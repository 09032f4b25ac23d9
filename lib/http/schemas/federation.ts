import { CLIENT_ID_PATTERN } from "../../domain/clients/client";
import { SID_PATTERN } from "../../domain/federation/external-account";
import { PROVIDER_PART_PATTERN } from "../../settings-schema";
import type { JsonSchema } from "../route";
import { personName, subjectIdParam } from "./common";

const subjectId = (subjectIdParam.properties as Record<string, JsonSchema>).subjectId;
const providerPart = (description: string): JsonSchema => ({
  type: "string",
  pattern: PROVIDER_PART_PATTERN,
  description,
});

/** /users/{subjectId}/fa/{fpType}/{fpName}/{sid} */
export const linkParams: JsonSchema = {
  type: "object",
  required: ["subjectId", "fpType", "fpName", "sid"],
  properties: {
    subjectId,
    fpType: providerPart("Provider type, as configured (federation.providers[].type)"),
    fpName: providerPart("Provider name, as configured (federation.providers[].name)"),
    sid: { type: "string", pattern: SID_PATTERN, description: "Account id at the external provider" },
  },
};

/** /users/{subjectId}/fedToken/{fedPointType}/{fedPointName} (SPEC 4.9 names them so). */
export const fedTokenParams: JsonSchema = {
  type: "object",
  required: ["subjectId", "fedPointType", "fedPointName"],
  properties: {
    subjectId,
    fedPointType: providerPart("Provider type"),
    fedPointName: providerPart("Provider name"),
  },
};

export const linkBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    federatedAccountName: {
      ...personName,
      description: "Name of the external account; when omitted the stored name is kept",
    },
  },
};

export const linkList: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["sid", "fpType", "fpName"],
    properties: {
      sid: { type: "string" },
      fpType: { type: "string" },
      fpName: { type: "string" },
      userName: { type: "string" },
    },
  },
};

export const bindBody: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["fp", "callback"],
  properties: {
    fp: {
      type: "string",
      pattern: "^[A-Za-z0-9-]{1,64}:[A-Za-z0-9-]{1,64}$",
      description: "<type>:<name> of a configured provider",
    },
    callback: {
      type: "string",
      format: "uri",
      maxLength: 2048,
      description: "Where the browser returns; must be a redirect URI registered for the application",
    },
    isPopup: { type: "boolean", description: "The provider's page opens in a popup (OIDC display=popup)" },
    clientId: {
      type: "string",
      pattern: CLIENT_ID_PATTERN.source,
      description:
        "The application whose redirect URIs hold `callback`. Required with HTTP Basic (the user's login names no application); with a user token it is the token's application.",
    },
  },
};

export const bindResponse: JsonSchema = {
  type: "object",
  required: ["redirectTo"],
  properties: { redirectTo: { type: "string", description: "Send the user's browser here" } },
};

/** What a provider sends back (RFC 6749 4.1.2); providers may add more (iss, session_state). */
export const providerAnswerQuery: JsonSchema = {
  type: "object",
  properties: {
    state: { type: "string", maxLength: 512 },
    code: { type: "string", maxLength: 4096 },
    error: { type: "string", maxLength: 256 },
    error_description: { type: "string", maxLength: 2048 },
  },
};

export const fedTokenView: JsonSchema = {
  type: "object",
  description: "External account id at the provider -> its access token",
  additionalProperties: {
    type: "object",
    required: ["expiresOn", "token"],
    properties: {
      expiresOn: { type: "integer", description: "Unix time the token expires" },
      token: { type: "string" },
    },
  },
};
