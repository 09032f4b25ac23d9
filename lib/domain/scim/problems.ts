import { ApiError } from "../errors";

/**
 * SCIM's errors (RFC 7644 3.12): the HTTP status and, where the RFC names one, the
 * `scimType` the error body carries (lib/http/error-body.ts shapes them).
 */
const scim = (status: number, error: string, detail: string, scimType?: string) =>
  new ApiError(status, status >= 500 ? "process_error" : "input_error", error, detail, {
    ...(scimType && { scimType }),
  });

export const scimProblems = {
  invalidFilter: (detail: string) => scim(400, "invalid_filter", `invalid filter: ${detail}`, "invalidFilter"),
  invalidValue: (detail: string) => scim(400, "invalid_value", detail, "invalidValue"),
  invalidSyntax: (detail: string) => scim(400, "invalid_syntax", detail, "invalidSyntax"),
  invalidPath: (detail: string) => scim(400, "invalid_path", detail, "invalidPath"),
  noTarget: (detail: string) => scim(400, "no_target", detail, "noTarget"),
  mutability: (detail: string) => scim(400, "mutability", detail, "mutability"),
  tooMany: (limit: number) =>
    scim(
      400,
      "too_many",
      `the organization has more than ${limit} provisioned users: ask by userName, externalId or id`,
      "tooMany",
    ),
  userNotFound: (id: string) => scim(404, "user_not_found", `no provisioned user has the id ${id}`),
  groupNotFound: (id: string) => scim(404, "group_not_found", `no provisioned group has the id ${id}`),
  uniqueness: (detail: string) => scim(409, "uniqueness", detail, "uniqueness"),
  preconditionFailed: () =>
    scim(412, "precondition_failed", "the resource changed since the version in If-Match; read it again"),
  changedConcurrently: () =>
    scim(409, "changed_concurrently", "the resource changed while this request ran; try again"),
  notConfigured: (orgId: string) =>
    new ApiError(404, "process_error", "scim_not_configured", "the organization has no SCIM connection", {
      params: { orgId },
    }),
};
