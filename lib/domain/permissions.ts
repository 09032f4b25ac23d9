/** The permission catalogue of interface §5.3. */

export const USER_PERMISSIONS = [
  "svc_change_password",
  "svc_user_rights",
  "svc_api_user",
  "svc_api_user_chg",
  "svc_api_usec",
  "svc_api_usec_chg",
  "svc_api_uapps",
  "svc_api_uapps_chg",
  "svc_api_uaud",
  "svc_api_ufa",
  "svc_api_ufa_chg",
  "svc_qr_auth",
  // An organization admin's calls (docs/organizations.md): only where the token's subject holds ORG_ADMIN now.
  "svc_org_admin",
] as const;

export const SYSTEM_PERMISSIONS = [
  "svc_groups",
  "svc_rights_full_access",
  "svc_rm_rights",
  "svc_api_sys_users",
  "svc_api_sys_users_chg",
  "svc_api_sys_users_reg",
  "svc_api_sys_usec",
  "svc_api_sys_usec_chg",
  "svc_api_sys_uapps",
  "svc_api_sys_uapps_chg",
  "svc_api_sys_uaud",
  "svc_api_sys_ufa",
  "svc_api_sys_ufa_chg",
  "svc_api_sys_clients",
  "svc_api_sys_clients_chg",
  // Grants what administers permissions (interface §4.17): svc_rights_full_access, the _chg above, itself.
  "svc_api_sys_clients_admin",
  // The signing keys (interface §4.19): read their states; rotate them.
  "svc_api_sys_keys",
  "svc_api_sys_keys_chg",
  "fed_tkn_any",
] as const;

/** fed_tkn_<type>_<name>: one permission per external provider (interface §4.9). */
const FEDERATED_TOKEN_PERMISSION = /^fed_tkn_[a-z0-9-]+_[a-z0-9-]+$/i;

export function federatedTokenPermission(fpType: string, fpName: string): string {
  return `fed_tkn_${fpType}_${fpName}`;
}

/**
 * OpenID Connect scopes (OIDC Core 5.4, 11): who the user is, not what a token may call.
 * Every client may ask for them, so they are no client's permissions. `address` is
 * accepted as clients send it; accounts hold no postal address, so it releases nothing.
 * `organization` asks the user to pick one of their organizations (docs/organizations.md).
 */
export const OIDC_SCOPES = [
  "openid",
  "profile",
  "email",
  "address",
  "phone",
  "offline_access",
  "organization",
] as const;

export function isOidcScope(name: string): boolean {
  return (OIDC_SCOPES as readonly string[]).includes(name);
}

export type PermissionKind = "user" | "system";

export function permissionKind(name: string): PermissionKind | undefined {
  if ((USER_PERMISSIONS as readonly string[]).includes(name)) return "user";
  if ((SYSTEM_PERMISSIONS as readonly string[]).includes(name)) return "system";
  if (FEDERATED_TOKEN_PERMISSION.test(name)) return "system";
  return undefined;
}

export const ALL_PERMISSIONS: readonly string[] = [...USER_PERMISSIONS, ...SYSTEM_PERMISSIONS];

/** Splits an OAuth scope string (RFC 6749 3.3): space separated, no empties, no repeats. */
export function parseScope(scope: string): string[] {
  return [...new Set(scope.split(" ").filter((s) => s.length > 0))];
}

/**
 * Permissions asked for, worded for an error_description: names of our catalogue only,
 * so a description never repeats what a caller typed (RFC 6749 5.2); others are counted.
 */
export function describeRequested(names: readonly string[]): string {
  const known = names.filter((name) => permissionKind(name) !== undefined && name.length <= 128);
  const unknown = names.length - known.length;
  const parts = [...known, ...(unknown > 0 ? [`${unknown} unknown permission${unknown === 1 ? "" : "s"}`] : [])];
  return parts.join(" ");
}
