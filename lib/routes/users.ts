import type { AccountRemovalUseCases } from "../domain/accounts/deletion";
import { CONTACT_STATE_PATTERN } from "../domain/accounts/instance-id";
import type { UserUseCases } from "../domain/accounts/users";
import { jsonResult } from "../http/error-body";
import type { CommonCall } from "../http/route";
import { group, route } from "../http/route";
import {
  badAccessToken,
  FREE_KEY_NAME,
  instanceIdInPath,
  personName,
  STORABLE_NUMBER_BOUNDS,
  subjectIdParam,
  v3Error,
} from "./schemas";

const contactView = {
  type: "object",
  required: ["value", "vrf"],
  properties: { value: { type: "string" }, vrf: { type: "boolean", description: "confirmed" } },
} as const;

/** interface §2.1 as v3 reads return it. */
export const accountView = {
  type: "object",
  required: ["sub", "locked", "meta"],
  properties: {
    sub: { type: "string" },
    family_name: { type: "string" },
    given_name: { type: "string" },
    middle_name: { type: "string" },
    locked: { type: "boolean" },
    phone_number: contactView,
    email: contactView,
    notes: {
      type: "object",
      description: "present only while a contact change waits for its code (interface §2.6)",
      properties: {
        actions: {
          type: "array",
          items: {
            type: "object",
            required: ["state", "exp", "status", "from", "attr", "attempts_left", "value", "action", "created"],
            properties: {
              state: { type: "string" },
              exp: { type: "integer", description: "lifetime of the code in seconds" },
              status: { const: "code_waiting" },
              from: { type: "string" },
              attr: { enum: ["phone_number", "email"] },
              attempts_left: { type: "integer" },
              value: { type: "string" },
              action: { enum: ["validate_mobile", "validate_mail"] },
              created: { type: "integer" },
            },
          },
        },
      },
    },
    meta: {
      type: "object",
      required: ["instanceId", "unmodifiable"],
      properties: {
        instanceId: { type: "string" },
        unmodifiable: { type: "array", items: { type: "string" } },
      },
    },
  },
} as const;

const contactChange = (description: string) =>
  ({
    type: "object",
    additionalProperties: false,
    required: ["value", "vrf"],
    description,
    properties: {
      value: { type: "string", minLength: 1, maxLength: 254 },
      vrf: {
        type: "boolean",
        description:
          "true: the value is confirmed already and changes at once (system mode only); false: a code is sent to the new value and the change waits in notes.actions",
      },
    },
  }) as const;

/** interface §4.6 attribute change: only the attributes to change. */
export const accountChange = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    family_name: { anyOf: [personName, { type: "null" }], description: "null removes it" },
    given_name: { anyOf: [personName, { type: "null" }], description: "null removes it" },
    middle_name: { anyOf: [personName, { type: "null" }], description: "null removes it" },
    locked: { type: "boolean", description: "system mode only" },
    phone_number: contactChange("new phone number, (country code)XXXXXXXXXX"),
    email: contactChange("new e-mail address"),
    sub: { description: "unmodifiable: always refused" },
    meta: { description: "read only: always refused" },
  },
} as const;

const propertyValue = { type: ["string", "number", "boolean"], maxLength: 1024, ...STORABLE_NUMBER_BOUNDS } as const;
const propertyName = {
  type: "string",
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9_.:-]+$",
  ...FREE_KEY_NAME,
} as const;

/** interface §4.11: the property map; values are strings, numbers or booleans only. */
export const propertyMap = {
  type: "object",
  propertyNames: propertyName,
  additionalProperties: propertyValue,
} as const;

export const propertiesChange = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    add: { type: "object", maxProperties: 50, propertyNames: propertyName, additionalProperties: propertyValue },
    remove: { type: "array", maxItems: 50, items: propertyName },
  },
} as const;

export const stateParam = {
  type: "object",
  required: ["state"],
  properties: { state: { type: "string", pattern: CONTACT_STATE_PATTERN, description: "notes.actions[].state" } },
} as const;

export const contactCodeRequest = {
  type: "object",
  additionalProperties: false,
  required: ["cmd", "value"],
  properties: { cmd: { const: "code" }, value: { type: "string", minLength: 1, maxLength: 32 } },
} as const;

export const contactCodeRefusal = {
  type: "object",
  properties: {
    msg: { const: "wrong_code" },
    attempts_left: { type: "integer" },
    cause: { enum: ["no_attempts_left", "code_expired"] },
  },
} as const;

/** interface §4.7 user search. */

export const searchQuery = {
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
} as const;

const { meta: _meta, ...attrs } = accountView.properties;

export const searchResults = {
  type: "array",
  items: {
    type: "object",
    required: ["instanceId", "attrs"],
    properties: {
      instanceId: { type: "string" },
      attrs: { type: "object", required: ["sub", "locked"], properties: attrs },
    },
  },
} as const;

function confirmation(users: UserUseCases, field: "phone_number" | "email") {
  return async (call: CommonCall & { subject: string; params: { state: string }; body: { value: string } }) => {
    const { state } = call.params;
    const answer = await users.confirmContact(call.subject, field, state, call.body.value, call.account);
    return jsonResult(answer.status, answer.body);
  };
}

const getRoute = (users: UserUseCases) =>
  route({
    id: "users.get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user"], system: ["svc_api_sys_users"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read the attributes of an account (interface §4.6)",
    tags: ["users"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "Account attributes with meta", schema: accountView },
      400: { description: "Malformed subject id", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await users.read(call.subject, call.account)),
  });

const propsGet = (users: UserUseCases) =>
  route({
    id: "users.props-get",
    method: "GET",
    path: "/svc/api/v3/users/{subjectId}/props",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user"], system: ["svc_api_sys_users"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Read the user properties (interface §4.11)",
    tags: ["users"],
    request: { params: subjectIdParam },
    responses: {
      200: { description: "The property map", schema: propertyMap },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await users.properties(call.subject)),
  });

const propsChange = (users: UserUseCases) =>
  route({
    id: "users.props-change",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}/props",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user"], system: ["svc_api_sys_users"] },
    subject: { param: "subjectId", kind: "subjectId" },
    summary: "Add, overwrite and remove user properties (interface §4.11)",
    description:
      "add: name -> string, number or boolean (adds or overwrites); remove: names. Removals apply first. Limits: names 1-64 of A-Z a-z 0-9 _ . : -, string values up to 1024 characters, at most 50 properties per account.",
    tags: ["users"],
    request: { params: subjectIdParam, body: { contentType: "json", schema: propertiesChange, required: true } },
    responses: {
      200: { description: "The resulting full map", schema: propertyMap },
      400: { description: "wrong_values, wrong_value (too many properties)", schema: v3Error },
      401: badAccessToken,
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => jsonResult(200, await users.changeProperties(call.subject, call.body)),
  });

const changeRoute = (users: UserUseCases) =>
  route({
    id: "users.change",
    method: "POST",
    path: "/svc/api/v3/users/{subjectId}",
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user_chg"], system: ["svc_api_sys_users_chg"] },
    subject: { param: "subjectId", kind: "instanceId" },
    userHeaders: true,
    summary: "Change attributes of an account (interface §4.6); the path carries meta.instanceId",
    description:
      "The path segment is the account's meta.instanceId (interface §4.6 writes it {instanceId}). Send only the attributes to change. sub is unmodifiable; locked and contacts with vrf=true are system mode only. A contact with vrf=false gets a code (SMS or e-mail) and waits in notes.actions until confirmed. User mode sends X-Forwarded-For and User-Agent. A code that cannot be sent answers 502 and changes nothing.",
    tags: ["users"],
    request: {
      params: instanceIdInPath,
      body: { contentType: "json", schema: accountChange, required: true },
    },
    responses: {
      200: { description: "The changed account", schema: accountView },
      400: { description: "input_error: wrong_values, contact_use_violation", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
      502: { description: "The confirmation code could not be sent", schema: v3Error },
    },
    handler: async (call) =>
      jsonResult(
        200,
        await users.change(call.subject, call.body, {
          mode: call.principal?.mode ?? "system",
          language: call.language,
          account: call.account,
        }),
      ),
  });

/** Confirms a waiting contact change with its code (interface §4.6, 3.2). */
function contactConfirmation(users: UserUseCases, field: "phone_number" | "email", action: string, contact: string) {
  return route({
    id: `users.${action}`,
    method: "POST",
    path: `/svc/api/v3/users/notes/${action}/{state}`,
    version: "v3",
    auth: "bearer",
    permissions: { user: ["svc_api_user_chg"], system: ["svc_api_sys_users_chg"] },
    subject: { param: "state", kind: "contactState" },
    userHeaders: true,
    summary: `Confirm ${contact} change with its code (interface §4.6, 3.2)`,
    description:
      "state comes from notes.actions[].state. 200 with the changed account; 400 {msg: wrong_code, attempts_left}; 429 {cause: no_attempts_left}; 410 {cause: code_expired}; 404 when no change waits under the state.",
    tags: ["users"],
    request: { params: stateParam, body: { contentType: "json", schema: contactCodeRequest, required: true } },
    responses: {
      200: { description: "The contact changed and is confirmed", schema: accountView },
      400: { description: "wrong_code, or invalid input", schema: { anyOf: [contactCodeRefusal, v3Error] } },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_state", schema: v3Error },
      410: { description: "code_expired", schema: contactCodeRefusal },
      429: { description: "no_attempts_left", schema: contactCodeRefusal },
    },
    handler: confirmation(users, field),
  });
}

const searchRoute = (users: UserUseCases) =>
  route({
    id: "users.search",
    method: "GET",
    path: "/svc/api/v3/users",
    version: "v3",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_users"] },
    summary: "Search accounts with RQL (interface §4.7)",
    description:
      "query: and, or, eq (or name=value with & and |), limit(count[,offset]); string values as string:<value>. In each value percent-escape & | ( ) = < > , and %, assemble name=<escaped value>, then URL-encode the whole as the query parameter. Equality on an indexed attribute (search.indexedAttributes: sub, email, phone_number, family_name, given_name, middle_name by default) is a lookup by key; other attributes (locked) may only narrow an and() that has one. Names and e-mail ignore case; phones compare by digits. At most 1000 accounts per lookup and answer.",
    tags: ["users", "search"],
    request: { query: searchQuery },
    responses: {
      200: { description: "Matching accounts, by sub", schema: searchResults },
      400: {
        description: "input_error: wrong_query, unknown_attribute, not_indexed, too_many_results",
        schema: v3Error,
      },
      401: badAccessToken,
    },
    handler: async (call) => jsonResult(200, await users.search(call.query.query)),
  });

const deleteRoute = (deletion: AccountRemovalUseCases) =>
  route({
    id: "users.delete",
    method: "DELETE",
    path: "/svc/api/v3/users/{subjectId}",
    version: "v3",
    auth: "bearer",
    permissions: { system: ["svc_api_sys_users_chg"] },
    subject: { param: "subjectId", kind: "subjectId" },
    recentSignIn: true,
    summary: "Delete an account at once (system mode; the admin console)",
    description:
      "Every item of the account goes in one write (profile, credentials, sessions, devices, links, rights both ways): its tokens stop working at once. accountDeletion.graceDays does not apply; an owner deleting their own account uses the account console. The account's trail keeps one account_delete event for audit.retentionDays, and the event stream publishes account.deleted. An operator of the admin console must have signed in within 10 minutes.",
    tags: ["users"],
    request: { params: subjectIdParam },
    responses: {
      204: { description: "Deleted" },
      400: { description: "Malformed subject id", schema: v3Error },
      401: { description: "bad_access_token", schema: v3Error },
      404: { description: "unknown_user", schema: v3Error },
    },
    handler: async (call) => {
      const actor = {
        ts: Date.now(),
        cId: call.principal?.clientId ?? "system",
        ip: call.sourceIp,
        ua: call.userAgent,
      };
      await deletion.deleteNow(call.subject, actor, Math.floor(Date.now() / 1000));
      return jsonResult(204, undefined);
    },
  });

export const usersRoutes = (users: UserUseCases, deletion: AccountRemovalUseCases) =>
  group("users", [
    getRoute(users),
    deleteRoute(deletion),
    propsGet(users),
    propsChange(users),
    changeRoute(users),
    contactConfirmation(users, "phone_number", "validate_mobile", "a phone number"),
    contactConfirmation(users, "email", "validate_email", "an e-mail"),
    searchRoute(users),
  ]);
