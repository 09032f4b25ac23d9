import * as oidc from "openid-client";
import { describe, expect, it, vi } from "vitest";
import { seedAccount, uniqueId } from "../support/fixtures";
import { forgetHookCalls, hookCalls, scriptHook, useScriptedHooks } from "../support/hooks";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { request } from "../support/requests";

/**
 * An organization in the protocol (DESIGN 6b, issue 39 point 5): an authorization request
 * names one with `organization=<id>`; a member's ID token, access token and userinfo carry
 * `org_id` and `org_roles` (the rights held over the organization's group); anyone else is
 * refused. openid-client is the relying party, chromium the browser.
 */

const { relyingParty, startAuthorization, fillSignInForm, backAtClient, redeem } = await useHostedSignIn();

vi.setConfig({ testTimeout: 60_000 });

async function organization() {
  const id = uniqueId("org-");
  const created = await request("groups", "events/groups/create-group.json", {
    body: { profile: "org", id, name: `Org ${id}` },
  });
  expect(created.statusCode, created.body).toBe(201);
  return id;
}

async function join(org: string, sub: string, rights: string[] = []) {
  const added = await request("groups", "events/groups/members-add.json", {
    params: { groupId: org },
    query: { profile: "org" },
    body: [{ subjectId: sub }],
  });
  expect(added.statusCode, added.body).toBe(200);
  if (rights.length === 0) return;
  const granted = await request("rights", "events/rights/assign-rights.json", {
    body: { subject: sub, object: org, objectType: "grps", objectExt: "org", rights, tags: ["org"] },
  });
  expect(granted.statusCode, granted.body).toBe(204);
}

/** Signs `login` in for `org` and answers where the browser came back. */
async function signInFor(config: oidc.Configuration, redirectUri: string, login: string, org: string) {
  const started = await startAuthorization(config, redirectUri, { organization: org });
  const { context, page } = await fillSignInForm(started.url, login, PASSWORD);
  const callback = await backAtClient(page);
  await context.close();
  return { started, callback };
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString()) as Record<string, unknown>;

describe("organization=<id> at the authorization endpoint", () => {
  it("when a member signs in for the organization, the ID token, access token, userinfo and each refresh carry org_id and org_roles", async () => {
    const org = await organization();
    const member = await seedAccount({}, PASSWORD);
    await join(org, member.sub, ["ORG_ADMIN"]);
    const rp = await relyingParty({ scopes: ["svc_api_user", "offline_access"] });
    const { started, callback } = await signInFor(rp.config, rp.redirectUri, member.sub, org);
    const tokens = await redeem(rp.config, callback, started);
    expect(tokens.claims()).toMatchObject({ sub: member.sub, org_id: org, org_roles: ["ORG_ADMIN"] });
    expect(claimsOf(tokens.access_token)).toMatchObject({ sub: member.sub, org_id: org, org_roles: ["ORG_ADMIN"] });
    const info = await oidc.fetchUserInfo(rp.config, tokens.access_token, member.sub);
    expect(info).toMatchObject({ sub: member.sub, org_id: org, org_roles: ["ORG_ADMIN"] });

    // Roles are read again: a role granted after the sign-in shows in the next refresh.
    const granted = await request("rights", "events/rights/assign-rights.json", {
      body: {
        subject: member.sub,
        object: org,
        objectType: "grps",
        objectExt: "org",
        rights: ["SYS_MON"],
        tags: ["org"],
      },
    });
    expect(granted.statusCode, granted.body).toBe(204);
    const refreshed = await oidc.refreshTokenGrant(rp.config, tokens.refresh_token as string);
    expect(claimsOf(refreshed.access_token)).toMatchObject({ org_id: org, org_roles: ["ORG_ADMIN", "SYS_MON"] });

    // Removed from the organization: the next refresh and userinfo refuse.
    const removed = await request("groups", "events/groups/members-rm.json", {
      params: { groupId: org },
      query: { profile: "org" },
      body: [{ subjectId: member.sub }],
    });
    expect(removed.statusCode, removed.body).toBe(200);
    await expect(oidc.refreshTokenGrant(rp.config, refreshed.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
      error_description: "the account is no longer a member of the organization",
    });
    await expect(oidc.fetchUserInfo(rp.config, refreshed.access_token, member.sub)).rejects.toThrow();
  });

  it("when the preTokenIssue hook runs, it is told the organization and the roles, and cannot change the org claims", async () => {
    const org = await organization();
    const member = await seedAccount({}, PASSWORD);
    await join(org, member.sub, ["ORG_ADMIN"]);
    useScriptedHooks({ preTokenIssue: 1000 });
    forgetHookCalls();
    scriptHook("preTokenIssue", () => ({
      accessToken: { claims: { plan: "gold", org_id: "elsewhere" } },
      idToken: { claims: { org_roles: ["FORGED"] } },
    }));
    try {
      const rp = await relyingParty();
      const { started, callback } = await signInFor(rp.config, rp.redirectUri, member.sub, org);
      const tokens = await redeem(rp.config, callback, started);
      expect(hookCalls("preTokenIssue").at(-1)).toMatchObject({
        grant: "authorization_code",
        sub: member.sub,
        organization: { id: org, roles: ["ORG_ADMIN"] },
      });
      expect(claimsOf(tokens.access_token)).toMatchObject({ plan: "gold", org_id: org, org_roles: ["ORG_ADMIN"] });
      expect(tokens.claims()).toMatchObject({ org_id: org, org_roles: ["ORG_ADMIN"] });
    } finally {
      useScriptedHooks({});
    }
  });

  it("when the account is not a member, the client hears access_denied and no code is issued", async () => {
    const org = await organization();
    const outsider = await seedAccount({}, PASSWORD);
    const rp = await relyingParty();
    const { callback, started } = await signInFor(rp.config, rp.redirectUri, outsider.sub, org);
    expect(callback.searchParams.get("error")).toBe("access_denied");
    expect(callback.searchParams.get("error_description")).toBe("the account is not a member of the organization");
    expect(callback.searchParams.get("state")).toBe(started.state);
    expect(callback.searchParams.has("code")).toBe(false);
  });

  it("when the same browser switches organization, no password is asked again and each code carries its own", async () => {
    const [first, second] = [await organization(), await organization()];
    const member = await seedAccount({}, PASSWORD);
    await join(first, member.sub, ["ORG_ADMIN"]);
    await join(second, member.sub);
    const rp = await relyingParty();
    const started = await startAuthorization(rp.config, rp.redirectUri, { organization: first });
    const { context, page } = await fillSignInForm(started.url, member.sub, PASSWORD);
    const back = await backAtClient(page);
    expect((await redeem(rp.config, back, started)).claims()).toMatchObject({
      org_id: first,
      org_roles: ["ORG_ADMIN"],
    });
    // The session holds: the second organization's request comes straight back with a code.
    const again = await startAuthorization(rp.config, rp.redirectUri, { organization: second });
    await page.goto(again.url.toString());
    const switched = await backAtClient(page);
    expect((await redeem(rp.config, switched, again)).claims()).toMatchObject({ org_id: second, org_roles: [] });
    await context.close();
  });

  it("when organization is malformed, the client hears invalid_request", async () => {
    const rp = await relyingParty();
    const started = await startAuthorization(rp.config, rp.redirectUri, { organization: "no|pipes" });
    const answer = await fetch(started.url, { redirect: "manual" });
    const location = new URL(answer.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toBe("organization must be an organization's id");
  });
});
