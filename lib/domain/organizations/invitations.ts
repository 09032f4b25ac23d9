import { randomBytes } from "node:crypto";
import type { Account } from "../accounts/account";
import { normalizeEmail } from "../accounts/contacts";
import { digestSecret, generateSecret } from "../credentials/secret-digest";
import { ApiError, problems } from "../errors";
import { ORGANIZATION_PROFILE } from "../groups/group";
import { groupProblems } from "../groups/problems";
import type { Courier, Language } from "../messages/ports";
import { appliesTo } from "../rights/catalogue";
import { rightProblems } from "../rights/problems";
import { type Invitation, InvitationRefusedError, type InvitationRepository } from "./invitation-ports";
import { authorize, checkRoles, guardOf, type OrganizationDeps, type OrgCaller, rightProblem } from "./organizations";
import { OrgChangeRefusedError } from "./ports";

/** The parameter that marks a sealed sign-in as an invitation's (the authorization endpoint drops it). */
export const INVITATION_MARK = "invitation";
/** Pending invitations per page by default and at most. */
export const INVITATIONS_PER_PAGE = 100;
/** Invitation ids: 16 random bytes, base64url. */
export const INVITATION_ID_PATTERN = "^[A-Za-z0-9_-]{22}$";
const INVITATION_ID = new RegExp(INVITATION_ID_PATTERN);

export interface InvitationSettings {
  /** How long a link may be used (default 7). */
  ttlDays: number;
}

export interface InvitationDeps extends Pick<OrganizationDeps, "orgs" | "rightDefinitions" | "events"> {
  invitations: InvitationRepository;
  groups: Pick<OrganizationDeps["groups"], "get">;
  courier: Courier;
  settings: InvitationSettings;
  /** The hosted page a link opens, with the token in it. */
  linkOf: (token: string) => string;
  defaultLanguage: Language;
  now?: () => number;
}

const epoch = () => Math.floor(Date.now() / 1000);

export const invitationProblems = {
  pending: (email: string) =>
    new ApiError(
      409,
      "process_error",
      "invitation_pending",
      "this address already has a pending invitation to the organization; revoke it first to invite it again",
      { params: { email }, v2Code: "invitation_pending" },
    ),
  notFound: (id: string) =>
    new ApiError(404, "process_error", "invitation_not_found", "no pending invitation of this id", {
      params: { invitationId: id },
      v2Code: "invitation_not_found",
    }),
};

/** The invitation as the management API answers it: never its token. */
export function invitationView(invitation: Invitation) {
  return {
    invitationId: invitation.id,
    email: invitation.email,
    roles: invitation.roles,
    language: invitation.language,
    ...(invitation.invitedBy && { invitedBy: invitation.invitedBy }),
    createdAt: new Date(invitation.createdAt * 1000).toISOString(),
    expiresAt: new Date(invitation.expiresAt * 1000).toISOString(),
  };
}

/** Custom roles must be in the catalogue for users over groups; acceptance checks them again in its transaction. */
async function checkCustomRoles(deps: InvitationDeps, custom: string[]): Promise<void> {
  for (const right of custom) {
    const definition = await deps.rightDefinitions.get(right);
    if (!definition) throw rightProblems.unknownRight(right);
    if (!appliesTo(definition, "user", "grps")) throw await rightProblem(deps, right);
  }
}

/**
 * Invites an address with roles: the invitation and its token's digest stored in one
 * transaction (one pending invitation per address: 409 invitation_pending), then the
 * message with the link. A message that cannot be sent takes the invitation back.
 */
export async function invite(
  deps: InvitationDeps,
  caller: OrgCaller,
  orgId: string,
  body: { email: string; roles?: string[]; language?: Language },
) {
  await authorize(deps, caller, orgId);
  const email = normalizeEmail(body.email);
  if (!email) throw problems.wrongValue("email", "not an e-mail address");
  const { roles, custom } = checkRoles(body.roles ?? []);
  await checkCustomRoles(deps, custom);
  const org = await deps.groups.get(ORGANIZATION_PROFILE, orgId);
  if (!org) throw groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  const now = (deps.now ?? epoch)();
  const token = generateSecret();
  const invitation: Invitation = {
    id: randomBytes(16).toString("base64url"),
    orgId,
    email,
    roles,
    language: body.language ?? deps.defaultLanguage,
    ...(caller.mode === "user" && { invitedBy: caller.sub }),
    createdAt: now,
    expiresAt: now + deps.settings.ttlDays * 86_400,
  };
  const guard = guardOf(deps, caller, orgId, email, roles);
  try {
    await deps.invitations.create(invitation, digestSecret(token), guard.alsoWrite);
  } catch (error) {
    if (!(error instanceof InvitationRefusedError)) throw error;
    if (error.reason === "pending") throw invitationProblems.pending(email);
    throw groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  }
  const params = { organization: org.name ?? orgId, link: deps.linkOf(token), days: deps.settings.ttlDays };
  try {
    await deps.courier.send("email", email, "organization-invitation", params, invitation.language);
  } catch (error) {
    // Nobody holds the link: the invitation goes, so the address may be invited again.
    await deps.invitations.revoke(invitation, []).catch(() => undefined);
    throw error;
  }
  return invitationView(invitation);
}

/** A page of pending invitations (id order); the cursor is the last id of the previous page. */
export async function listInvitations(
  deps: InvitationDeps,
  caller: OrgCaller,
  orgId: string,
  page: { limit?: number; cursor?: string },
) {
  if (page.cursor !== undefined && !INVITATION_ID.test(page.cursor))
    throw problems.wrongValue("cursor", "not a cursor this listing answered; start again without one");
  await authorize(deps, caller, orgId);
  // An admin's ORG_ADMIN over it (just checked) goes with the organization; an application is told a missing one.
  if (caller.mode === "system" && !(await deps.groups.get(ORGANIZATION_PROFILE, orgId)))
    throw groupProblems.notFound(orgId, ORGANIZATION_PROFILE);
  const found = await deps.invitations.pending(
    orgId,
    { limit: page.limit ?? INVITATIONS_PER_PAGE, after: page.cursor },
    (deps.now ?? epoch)(),
  );
  return {
    invitations: found.invitations.map(invitationView),
    ...(found.next !== undefined && { next: found.next }),
  };
}

/** Revokes a pending invitation: its link stops working at once. */
export async function revokeInvitation(deps: InvitationDeps, caller: OrgCaller, orgId: string, id: string) {
  await authorize(deps, caller, orgId);
  const invitation = INVITATION_ID.test(id) ? await deps.invitations.get(orgId, id) : undefined;
  if (!invitation || invitation.acceptedAt !== undefined) throw invitationProblems.notFound(id);
  const guard = guardOf(deps, caller, orgId, invitation.email, undefined);
  try {
    await deps.invitations.revoke(invitation, guard.alsoWrite);
  } catch (error) {
    if (error instanceof InvitationRefusedError) throw invitationProblems.notFound(id);
    throw error;
  }
}

/** What following a link shows: the organization inviting, while the invitation may still be accepted. */
export interface InvitationPreview {
  orgId: string;
  organization: string;
  email: string;
  language: Language;
}

/** The pending invitation a link's token names; undefined when unknown, used, revoked or expired. */
async function livePending(deps: InvitationDeps, token: string, now: number) {
  const invitation = token ? await deps.invitations.byToken(digestSecret(token)) : undefined;
  if (!invitation || invitation.acceptedAt !== undefined || invitation.expiresAt <= now) return undefined;
  return invitation;
}

export async function previewInvitation(deps: InvitationDeps, token: string): Promise<InvitationPreview | undefined> {
  const invitation = await livePending(deps, token, (deps.now ?? epoch)());
  if (!invitation) return undefined;
  const org = await deps.groups.get(ORGANIZATION_PROFILE, invitation.orgId);
  if (!org) return undefined;
  const { orgId, email, language } = invitation;
  return { orgId, organization: org.name ?? orgId, email, language };
}

/** How accepting a link ended. */
export type Acceptance =
  | { kind: "joined"; orgId: string; organization: string; roles: string[] }
  /** The account's confirmed e-mail is not the invited address. */
  | { kind: "wrongAccount" }
  | { kind: "alreadyMember"; orgId: string; organization: string }
  /** Unknown, used, revoked or expired (or its organization or a custom role is gone). */
  | { kind: "gone" };

/**
 * Accepts an invitation for a signed-in account whose confirmed e-mail is the invited
 * address: one transaction consumes it (only while pending and unexpired), adds the
 * membership and grants its roles, so a link works once however many tabs follow it.
 */
export async function acceptInvitation(
  deps: InvitationDeps,
  token: string,
  account: Pick<Account, "sub" | "email">,
): Promise<Acceptance> {
  const now = (deps.now ?? epoch)();
  const invitation = await livePending(deps, token, now);
  if (!invitation) return { kind: "gone" };
  const digest = digestSecret(token);
  if (!account.email?.verified || account.email.value !== invitation.email) return { kind: "wrongAccount" };
  const org = await deps.groups.get(ORGANIZATION_PROFILE, invitation.orgId);
  if (!org) return { kind: "gone" };
  const organization = org.name ?? invitation.orgId;
  const { roles, custom } = checkRoles(invitation.roles);
  const guard = {
    customRights: custom,
    alsoWrite: deps.invitations.consumeWrites(invitation, digest, account.sub, now),
  };
  try {
    await deps.orgs.addMember(invitation.orgId, account.sub, roles, now, guard);
  } catch (error) {
    if (!(error instanceof OrgChangeRefusedError)) throw error;
    // A used invitation fails its own condition too: "gone" wins over "already a member".
    if (error.reasons.includes("alsoWrite") || error.reasons.includes("org")) return { kind: "gone" };
    if (error.reasons.includes("alreadyMember"))
      return { kind: "alreadyMember", orgId: invitation.orgId, organization };
    if (error.reasons.includes("right")) return { kind: "gone" };
    throw rightProblems.changedConcurrently();
  }
  return { kind: "joined", orgId: invitation.orgId, organization, roles };
}

/** Whether a link's token names a pending invitation of this address (registration confirms it by the link). */
export async function invitationConfirms(deps: InvitationDeps, token: string, email: string): Promise<boolean> {
  const invitation = await livePending(deps, token, (deps.now ?? epoch)());
  return invitation !== undefined && invitation.email === normalizeEmail(email);
}

export type InvitationUseCases = ReturnType<typeof invitationUseCases>;

/** The management API's invitation calls (docs/organizations.md, Invitations). */
export function invitationUseCases(deps: InvitationDeps) {
  return {
    invite: (caller: OrgCaller, orgId: string, body: { email: string; roles?: string[]; language?: Language }) =>
      invite(deps, caller, orgId, body),
    list: (caller: OrgCaller, orgId: string, page: { limit?: number; cursor?: string }) =>
      listInvitations(deps, caller, orgId, page),
    revoke: (caller: OrgCaller, orgId: string, id: string) => revokeInvitation(deps, caller, orgId, id),
  };
}

/** What the hosted pages do with a link (lib/routes/hosted/invitation.ts). */
export function invitationLinkUseCases(deps: InvitationDeps) {
  return {
    preview: (token: string) => previewInvitation(deps, token),
    accept: (token: string, account: Pick<Account, "sub" | "email">) => acceptInvitation(deps, token, account),
    confirms: (token: string, email: string) => invitationConfirms(deps, token, email),
  };
}

export type InvitationLinkUseCases = ReturnType<typeof invitationLinkUseCases>;
