import { GROUP_SCHEMA } from "./group-resource";
import { DEFAULT_COUNT, LIST_SCHEMA, MAX_COUNT } from "./resources";
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from "./user-resource";

/** What a SCIM client reads to learn the server (RFC 7644 4): its features, resource types and schemas. */

const CONFIG_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [CONFIG_SCHEMA],
    documentationUri: `${baseUrl.replace(/\/scim\/v2$/, "")}/docs/scim`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_COUNT },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "The organization's SCIM token (POST /svc/api/v3/orgs/{orgId}/scim/token)",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
    defaultCount: DEFAULT_COUNT,
  };
}

export function resourceTypes(baseUrl: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "User",
      name: "User",
      endpoint: "/Users",
      description: "An account of the organization",
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      description: "A group of the organization's users",
      schema: GROUP_SCHEMA,
      meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/Group` },
    },
  ];
}

type Attribute = Record<string, unknown>;

/** RFC 7643 7: an attribute's definition, with the defaults most attributes share. */
const attr = (name: string, more: Attribute = {}): Attribute => ({
  name,
  type: "string",
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...more,
});

const complex = (name: string, subAttributes: Attribute[], more: Attribute = {}) =>
  attr(name, { type: "complex", subAttributes, ...more });
const multi = (name: string, valueType: Attribute = {}) =>
  complex(name, [attr("value", valueType), attr("display"), attr("type"), attr("primary", { type: "boolean" })], {
    multiValued: true,
  });

const USER_ATTRIBUTES = [
  attr("userName", { required: true, uniqueness: "server" }),
  complex(
    "name",
    ["formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"].map((n) => attr(n)),
  ),
  ...["displayName", "nickName", "title", "userType", "preferredLanguage", "locale", "timezone"].map((n) => attr(n)),
  attr("profileUrl", { type: "reference", referenceTypes: ["external"] }),
  attr("active", { type: "boolean" }),
  attr("password", { mutability: "writeOnly", returned: "never", description: "dropped unread: see docs/scim.md" }),
  multi("emails"),
  multi("phoneNumbers"),
  multi("ims"),
  multi("photos"),
  complex(
    "addresses",
    ["formatted", "streetAddress", "locality", "region", "postalCode", "country", "type"].map((n) => attr(n)),
    { multiValued: true },
  ),
  complex("groups", [attr("value", { mutability: "readOnly" }), attr("display", { mutability: "readOnly" })], {
    multiValued: true,
    mutability: "readOnly",
  }),
  multi("entitlements"),
  multi("roles"),
];

const ENTERPRISE_ATTRIBUTES = [
  ...["employeeNumber", "costCenter", "organization", "division", "department"].map((n) => attr(n)),
  complex("manager", [
    attr("value"),
    attr("$ref", { type: "reference" }),
    attr("displayName", { mutability: "readOnly" }),
  ]),
];

const GROUP_ATTRIBUTES = [
  attr("displayName", { required: true, uniqueness: "server" }),
  complex(
    "members",
    [
      attr("value", { mutability: "immutable" }),
      attr("$ref", { type: "reference", referenceTypes: ["User"], mutability: "immutable" }),
      attr("display", { mutability: "immutable" }),
      attr("type", { mutability: "immutable", canonicalValues: ["User"] }),
    ],
    { multiValued: true },
  ),
];

export function schemas(baseUrl: string) {
  const schema = (id: string, name: string, attributes: Attribute[]) => ({
    schemas: [SCHEMA_SCHEMA],
    id,
    name,
    attributes,
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${id}` },
  });
  return [
    schema(USER_SCHEMA, "User", USER_ATTRIBUTES),
    schema(ENTERPRISE_SCHEMA, "EnterpriseUser", ENTERPRISE_ATTRIBUTES),
    schema(GROUP_SCHEMA, "Group", GROUP_ATTRIBUTES),
  ];
}

/** A discovery list answered as a ListResponse (RFC 7644 4). */
export function listOf(resources: unknown[]) {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
