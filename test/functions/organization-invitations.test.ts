import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { invitationDeps, invitationStore, services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { invitationLinkUseCases } from "../../lib/domain/organizations/invitations";
import { keys } from "../../lib/store/keys";
import { grantKey } from "../../lib/store/rights";
import { seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { orgWithAdmin } from "../support/organizations";
import { outbox } from "../support/outbox";
import { request } from "../support/requests";
import { storedItem } from "../support/stored";

/** Organization invitations through the management API (docs/organizations.md#invitations) on DynamoDB Local. */

const SAMPLES = {
  invite: "events/orgs/invite.json",
  list: "events/orgs/invitations.json",
  revoke: "events/orgs/invitation-revoke.json",
} as const;

interface View {
  invitationId: string;
  email: string;
  roles: string[];
  language: "ru" | "en";
  invitedBy?: string;
  createdAt: string;
  expiresAt: string;
}

const orgOf = (id: string) => ({ kind: "grps" as const, id, profile: "org" });
const userOf = (sub: string) => ({ kind: "user" as const, id: sub });
const role = (sub: string, orgId: string, right: string) => ({ subject: userOf(sub), object: orgOf(orgId), right });

const address = () => `${uniqueId("invitee")}@example.com`;

function invite(orgId: string, authorization: string, body: Record<string, unknown>) {
  return request("groups", SAMPLES.invite, { params: { orgId }, body, authorization });
}

/** Every item of the organization's partition under the invitation prefixes. */
async function invitationItems(orgId: string) {
  const { Items } = await documentClient().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: "PK = :pk AND SK BETWEEN :a AND :b",
      ExpressionAttributeValues: { ":pk": keys.groupPartition("org", orgId), ":a": "INVITATION#", ":b": "INVITEE$" },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

/** The link in the newest message to `to`, and its token. */
function linkSentTo(to: string) {
  const message = outbox(to).at(-1);
  const link = message?.text.match(/\S+\/oauth\/invitation\?token=[A-Za-z0-9_-]+/)?.[0];
  if (!message || !link) throw new Error(`no invitation link was sent to ${to}: ${JSON.stringify(outbox(to))}`);
  return { message, link, token: link.split("?token=")[1] };
}

describe("POST /svc/api/v3/orgs/{orgId}/invitations", () => {
  it("when an admin invites an address with roles, the invitation, its address guard and its token digest are stored, the answer holds no token, and the message (en) carries a link to the hosted page", async () => {
    const { orgId, admin, token } = await orgWithAdmin("Acme Ltd");
    const email = address();
    const invited = await invite(orgId, token, {
      email: email.toUpperCase(),
      roles: ["SYS_MON", "SYS_MON"],
      language: "en",
    });
    expect(invited.statusCode).toBe(201);
    const view = invited.json as unknown as View;
    expect(view).toEqual({
      invitationId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      email,
      roles: ["SYS_MON"],
      language: "en",
      invitedBy: admin.sub,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    // Seven days by default.
    expect(Date.parse(view.expiresAt) - Date.parse(view.createdAt)).toBe(7 * 86_400_000);

    const { message, link, token: linkToken } = linkSentTo(email);
    expect(message).toMatchObject({ channel: "email", lang: "en", subject: "Invitation to join Acme Ltd" });
    expect(message.text).toContain("You are invited to join Acme Ltd");
    expect(link.startsWith(`${config().issuer}/oauth/invitation?token=`)).toBe(true);
    // At least 128 bits of randomness (32 bytes, base64url).
    expect(linkToken.length).toBeGreaterThanOrEqual(43);
    expect(JSON.stringify(invited.json)).not.toContain(linkToken);

    const items = await invitationItems(orgId);
    expect(items.map((i) => i.SK).sort()).toEqual([`INVITATION#${view.invitationId}`, `INVITEE#${email}`]);
    const stored = items.find((i) => i.SK === `INVITATION#${view.invitationId}`);
    expect(stored).toMatchObject({
      entity: "org-invitation",
      email,
      roles: ["SYS_MON"],
      tokenDigest: digestSecret(linkToken),
    });
    expect(JSON.stringify(stored)).not.toContain(linkToken);
    // The item's TTL is its expiry.
    expect(stored?.expiresAt).toBe(Date.parse(view.expiresAt) / 1000);
    const byDigest = await invitationStore().byToken(digestSecret(linkToken));
    expect(byDigest).toMatchObject({ id: view.invitationId, orgId, email });
  });

  it("when no language is given, the message is in the service's default (ru)", async () => {
    const { orgId, token } = await orgWithAdmin("Ромашка");
    const email = address();
    expect((await invite(orgId, token, { email })).statusCode).toBe(201);
    const { message } = linkSentTo(email);
    expect(message.lang).toBe(config().settings.defaultLanguage);
    expect(message).toMatchObject({ subject: "Приглашение в организацию Ромашка" });
    expect(message.text).toContain("Вас приглашают в организацию Ромашка");
  });

  it("when the address already has a pending invitation, 409 invitation_pending and nothing new is stored; after revoking, it may be invited again", async () => {
    const { orgId, token } = await orgWithAdmin();
    const email = address();
    const first = await invite(orgId, token, { email });
    expect(first.statusCode).toBe(201);
    const again = await invite(orgId, token, { email: ` ${email.toUpperCase()} ` });
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({ error: "invitation_pending" });
    expect(outbox(email)).toHaveLength(1);
    expect(await invitationItems(orgId)).toHaveLength(2);
    const { invitationId } = first.json as unknown as View;
    const revoked = await request("groups", SAMPLES.revoke, { params: { orgId, invitationId }, authorization: token });
    expect(revoked.statusCode).toBe(204);
    expect((await invite(orgId, token, { email })).statusCode).toBe(201);
  });

  it("when the input is bad (address, roles, unknown field, unknown custom right, role not for groups), 400 and nothing is stored or sent", async () => {
    const { orgId, token } = await orgWithAdmin();
    const email = address();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email: "not-an-address" }, "wrong_value"],
      [{}, ""],
      [{ email, roles: ["bad name!"] }, ""],
      [{ email, language: "de" }, ""],
      [{ email, extra: 1 }, ""],
      [{ email, roles: Array.from({ length: 21 }, (_, i) => `R${i}`) }, ""],
      [{ email, roles: [uniqueId("NoSuchRight")] }, "unknown_right"],
      [{ email, roles: ["SVC_FULL_ACCESS"] }, ""],
    ];
    for (const [body, error] of cases) {
      const answer = await invite(orgId, token, body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      if (error) expect(answer.json, JSON.stringify(body)).toMatchObject({ error });
    }
    expect(await invitationItems(orgId)).toEqual([]);
    expect(outbox(email)).toEqual([]);
  });

  it("when an application invites with svc_groups, it works without roles; with roles it also needs svc_rights_full_access", async () => {
    const { orgId } = await orgWithAdmin();
    const groupsOnly = await systemBearer(["svc_groups"]);
    const plain = await invite(orgId, groupsOnly, { email: address() });
    expect(plain.statusCode).toBe(201);
    expect((plain.json as unknown as View).invitedBy).toBeUndefined();
    const withRoles = await invite(orgId, groupsOnly, { email: address(), roles: ["SYS_MON"] });
    expect(withRoles.statusCode).toBe(401);
    const full = await systemBearer(["svc_groups", "svc_rights_full_access"]);
    expect((await invite(orgId, full, { email: address(), roles: ["SYS_MON"] })).statusCode).toBe(201);
  });
});

describe("listing and revoking invitations", () => {
  it("when an admin lists, pending invitations come a page at a time in id order, without tokens; revoked ones go, their link dies and the partition keeps nothing of them", async () => {
    const { orgId, token } = await orgWithAdmin();
    const emails = [address(), address(), address()];
    const views: View[] = [];
    for (const email of emails)
      views.push((await invite(orgId, token, { email, roles: ["SYS_MON"] })).json as unknown as View);
    const ids = views.map((v) => v.invitationId).sort();

    const first = await request("groups", SAMPLES.list, {
      params: { orgId },
      query: { limit: "2" },
      authorization: token,
    });
    expect(first.statusCode).toBe(200);
    const page1 = first.json as unknown as { invitations: View[]; next?: string };
    expect(page1.invitations.map((v) => v.invitationId)).toEqual(ids.slice(0, 2));
    expect(page1.next).toBe(ids[1]);
    const second = await request("groups", SAMPLES.list, {
      params: { orgId },
      query: { limit: "2", cursor: page1.next as string },
      authorization: token,
    });
    expect((second.json as unknown as { invitations: View[] }).invitations.map((v) => v.invitationId)).toEqual([
      ids[2],
    ]);
    for (const email of emails)
      expect(JSON.stringify(first.json) + JSON.stringify(second.json)).not.toContain(linkSentTo(email).token);

    const target = views[0];
    const linkToken = linkSentTo(target.email).token;
    const revoked = await request("groups", SAMPLES.revoke, {
      params: { orgId, invitationId: target.invitationId },
      authorization: token,
    });
    expect(revoked.statusCode).toBe(204);
    const after = await request("groups", SAMPLES.list, { params: { orgId }, authorization: token });
    expect((after.json as unknown as { invitations: View[] }).invitations.map((v) => v.invitationId)).toEqual(
      ids.filter((id) => id !== target.invitationId),
    );
    expect(await invitationStore().byToken(digestSecret(linkToken))).toBeUndefined();
    expect((await invitationItems(orgId)).filter((i) => JSON.stringify(i).includes(target.invitationId))).toEqual([]);
    // Twice: nothing pending of that id.
    const twice = await request("groups", SAMPLES.revoke, {
      params: { orgId, invitationId: target.invitationId },
      authorization: token,
    });
    expect(twice.statusCode).toBe(404);
    expect(twice.json).toMatchObject({ error: "invitation_not_found" });
    const account = await seedAccount({ email: { value: target.email, verified: true } });
    expect(await invitationLinkUseCases(invitationDeps()).accept(linkToken, account)).toEqual({ kind: "gone" });
  });

  it("when the cursor or limit is malformed, 400", async () => {
    const { orgId, token } = await orgWithAdmin();
    const queries: Array<Record<string, string>> = [
      { limit: "0" },
      { limit: "101" },
      { cursor: "not a cursor" },
      { cursor: "short" },
    ];
    for (const query of queries) {
      const answer = await request("groups", SAMPLES.list, { params: { orgId }, query, authorization: token });
      expect(answer.statusCode, JSON.stringify(query)).toBe(400);
    }
  });
});

describe("an admin of organization A in organization B (BOLA)", () => {
  it("when it invites, lists or revokes in B, every call answers 404 like a missing organization and B is unchanged", async () => {
    const a = await orgWithAdmin();
    const b = await orgWithAdmin();
    const email = address();
    const bInvite = await invite(b.orgId, b.token, { email });
    const { invitationId } = bInvite.json as unknown as View;
    const before = await invitationItems(b.orgId);

    const calls = [
      () => invite(b.orgId, a.token, { email: address(), roles: ["ORG_ADMIN"] }),
      () => request("groups", SAMPLES.list, { params: { orgId: b.orgId }, authorization: a.token }),
      () => request("groups", SAMPLES.revoke, { params: { orgId: b.orgId, invitationId }, authorization: a.token }),
      // B's invitation id under A's organization: not A's either.
      () => request("groups", SAMPLES.revoke, { params: { orgId: a.orgId, invitationId }, authorization: a.token }),
    ];
    const answers = [];
    for (const call of calls) answers.push(await call());
    for (const answer of answers.slice(0, 3)) {
      expect(answer.statusCode).toBe(404);
      expect(answer.json).toMatchObject({ error: "group_not_found", params: { grpId: b.orgId, profile: "org" } });
    }
    expect(answers[3].statusCode).toBe(404);
    expect(answers[3].json).toMatchObject({ error: "invitation_not_found" });
    expect(await invitationItems(b.orgId)).toEqual(before);
    expect(await invitationItems(a.orgId)).toEqual([]);
  });

  it("when a member without ORG_ADMIN calls, 404 as well", async () => {
    const { orgId } = await orgWithAdmin();
    const member = await seedAccount();
    await services().groups.addMembers("org", orgId, [member.sub], Math.floor(Date.now() / 1000));
    const memberToken = await userBearer(member.sub, ["svc_org_admin"]);
    expect((await invite(orgId, memberToken, { email: address() })).statusCode).toBe(404);
    expect(await invitationItems(orgId)).toEqual([]);
  });
});

describe("accepting an invitation (the domain step the hosted page runs)", () => {
  it("when the invited address's account accepts, one transaction makes it a member with the roles and consumes the invitation; a second use is refused", async () => {
    const { orgId, token } = await orgWithAdmin("Acme Ltd");
    const email = address();
    const view = (await invite(orgId, token, { email, roles: ["SYS_MON"] })).json as unknown as View;
    const { token: linkToken } = linkSentTo(email);
    const links = invitationLinkUseCases(invitationDeps());
    expect(await links.preview(linkToken)).toMatchObject({ orgId, organization: "Acme Ltd", email });

    const account = await seedAccount({ email: { value: email, verified: true } });
    expect(await links.accept(linkToken, account)).toEqual({
      kind: "joined",
      orgId,
      organization: "Acme Ltd",
      roles: ["SYS_MON"],
    });
    expect(await storedItem(keys.groupMember("org", orgId, account.sub))).toMatchObject({ sub: account.sub });
    expect(await storedItem(keys.membership(account.sub, "org", orgId))).toBeDefined();
    expect(await storedItem(grantKey(role(account.sub, orgId, "SYS_MON")))).toMatchObject({ tags: new Set(["org"]) });
    const consumed = await storedItem(keys.orgInvitation(keys.groupPartition("org", orgId), view.invitationId));
    expect(consumed).toMatchObject({ acceptedBy: account.sub, acceptedAt: expect.any(Number) });
    expect(await storedItem(keys.orgInvitee(keys.groupPartition("org", orgId), email))).toBeUndefined();

    // Single use: the link is gone, for this account and any other.
    expect(await links.accept(linkToken, account)).toEqual({ kind: "gone" });
    expect(await links.preview(linkToken)).toBeUndefined();
    // Accepted invitations are no longer pending.
    const listed = await request("groups", SAMPLES.list, { params: { orgId }, authorization: token });
    expect((listed.json as unknown as { invitations: View[] }).invitations).toEqual([]);
  });

  it("when two acceptances race, exactly one joins", async () => {
    const { orgId, token } = await orgWithAdmin();
    const email = address();
    await invite(orgId, token, { email, roles: ["SYS_MON"] });
    const { token: linkToken } = linkSentTo(email);
    const account = await seedAccount({ email: { value: email, verified: true } });
    const links = invitationLinkUseCases(invitationDeps());
    const outcomes = await Promise.all([links.accept(linkToken, account), links.accept(linkToken, account)]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(["gone", "joined"]);
  });

  it("when the account's e-mail is another address or unconfirmed, it is refused and the invitation stays pending", async () => {
    const { orgId, token } = await orgWithAdmin();
    const email = address();
    await invite(orgId, token, { email });
    const { token: linkToken } = linkSentTo(email);
    const links = invitationLinkUseCases(invitationDeps());
    const other = await seedAccount();
    const unconfirmed = await seedAccount({ email: { value: email, verified: false } });
    expect(await links.accept(linkToken, other)).toEqual({ kind: "wrongAccount" });
    expect(await links.accept(linkToken, unconfirmed)).toEqual({ kind: "wrongAccount" });
    expect(await storedItem(keys.groupMember("org", orgId, other.sub))).toBeUndefined();
    expect(await links.preview(linkToken)).toBeDefined();
  });

  it("when the invitation has expired, its link shows nothing and it is refused", async () => {
    const { orgId, token } = await orgWithAdmin();
    const email = address();
    await invite(orgId, token, { email });
    const { token: linkToken } = linkSentTo(email);
    const later = () => Math.floor(Date.now() / 1000) + 7 * 86_400 + 1;
    const links = invitationLinkUseCases({ ...invitationDeps(), now: later });
    const account = await seedAccount({ email: { value: email, verified: true } });
    expect(await links.preview(linkToken)).toBeUndefined();
    expect(await links.accept(linkToken, account)).toEqual({ kind: "gone" });
    expect(await storedItem(keys.groupMember("org", orgId, account.sub))).toBeUndefined();
  });
});
