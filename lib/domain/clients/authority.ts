import { permissionKind } from "../permissions";
import type { ClientRecord } from "./client";

/**
 * Who may administer which client over the admin API (interface §4.17). A caller grants
 * only what it holds, administers only clients no stronger than itself, and never widens
 * its own record. `svc-admin` works on the table directly: it is the root of trust and
 * is not asked.
 */

/** The permission that administers permissions: the clients call's `_chg` alone grants none of these. */
export const CLIENTS_ADMIN = "svc_api_sys_clients_admin";

/**
 * Permissions that hand out permissions (to clients) or rights (to accounts): granting one
 * takes CLIENTS_ADMIN besides holding it, so an administrator cannot mint its peers.
 */
export const ADMINISTRATIVE_PERMISSIONS: readonly string[] = [
  "svc_rights_full_access",
  "svc_api_sys_clients_chg",
  CLIENTS_ADMIN,
];

/** The caller of the admin API: its client and the permissions its access token carries. */
export interface ClientAdministrator {
  clientId: string;
  holds: ReadonlySet<string>;
}

type Powers = Pick<ClientRecord, "scopes" | "firstParty" | "trustRelayedAddress">;

/** What a client may do, as far as administering it goes. */
export type ClientPowers = Powers & Pick<ClientRecord, "grantTypes" | "resources" | "exchangeFrom">;

/**
 * What a caller must hold to create, change, rotate the secret of or delete a client with
 * these powers. System permissions act on every account, so the caller must hold each;
 * user permissions act only on an account whose user signs in through the client (and
 * consents), so any clients administrator may grant them. Skipping that consent
 * (firstParty) or trusting the address the client relays (weaker guess counting) is a
 * trust only CLIENTS_ADMIN gives, as are the administrative permissions.
 */
export function permissionsToAdminister(client: Powers): string[] {
  const needed = client.scopes.filter((scope) => permissionKind(scope) === "system");
  const administrative = client.scopes.some((scope) => ADMINISTRATIVE_PERMISSIONS.includes(scope));
  if (administrative || client.firstParty || client.trustRelayedAddress) needed.push(CLIENTS_ADMIN);
  return [...new Set(needed)];
}

/** The permissions `caller` lacks to administer clients with these powers; none when it may. */
export function missingPermissions(caller: ClientAdministrator, ...clients: Powers[]): string[] {
  const needed = new Set(clients.flatMap(permissionsToAdminister));
  return [...needed].filter((permission) => !caller.holds.has(permission));
}

/**
 * Whether `after` may do something `before` may not: a permission, a grant, an audience,
 * tokens of an audience to exchange, or a trust it lacked. Redirect addresses are not powers: a client may move its own.
 */
export function widens(before: ClientPowers, after: ClientPowers): boolean {
  const adds = (from: string[], to: string[]) => to.some((value) => !from.includes(value));
  return (
    adds(before.scopes, after.scopes) ||
    adds(before.grantTypes, after.grantTypes) ||
    adds(before.resources, after.resources) ||
    adds(before.exchangeFrom, after.exchangeFrom) ||
    (after.firstParty && !before.firstParty) ||
    (after.trustRelayedAddress && !before.trustRelayedAddress)
  );
}
