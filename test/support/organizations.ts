import { expect } from "vitest";
import { services } from "../../lib/container";
import { seedAccount, uniqueId, userBearer } from "./fixtures";
import { request } from "./requests";

/**
 * A new organization (created through the group API, as an application would) with a
 * member holding ORG_ADMIN, given through the rights store as an operator would, and that
 * member's user token with svc_org_admin.
 */
export async function orgWithAdmin(name = "Acme Ltd") {
  const orgId = uniqueId("org-");
  const created = await request("groups", "events/groups/create-group.json", {
    body: { profile: "org", id: orgId, name },
  });
  expect(created.statusCode, created.body).toBe(201);
  const admin = await seedAccount();
  await services().groups.addMembers("org", orgId, [admin.sub], Math.floor(Date.now() / 1000));
  await services().rights.importGrants([
    {
      subject: { kind: "user", id: admin.sub },
      object: { kind: "grps", id: orgId, profile: "org" },
      right: "ORG_ADMIN",
      tags: ["org"],
    },
  ]);
  return { orgId, admin, token: await userBearer(admin.sub, ["svc_org_admin"]) };
}
