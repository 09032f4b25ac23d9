import { afterAll, beforeAll, expect } from "vitest";
import { startTxtServer } from "./dns-server";
import { systemBearer, uniqueId } from "./fixtures";
import { startTestProvider, type TestProvider, useSettings } from "./oauth-provider";
import { request } from "./requests";

/**
 * Organizations that enforce their own single sign-on, set up through the API as an operator
 * would: a connection to a real OpenID provider on loopback (oauth2-mock-server) and a domain
 * proved by its TXT record at a DNS server on loopback, with policy `sso`.
 */
export async function useSsoOrganizations() {
  const dns = await startTxtServer();
  const used = {} as { provider: TestProvider };
  beforeAll(async () => {
    useSettings({ organizations: { dnsResolvers: [dns.resolver], dnsTimeoutMs: 1000 } });
    used.provider = await startTestProvider();
  });
  afterAll(async () => {
    await used.provider.stop();
    await dns.close();
  });

  /** A new organization with an enforced-SSO domain (`<orgId>.example.org`) and a connection to the provider. */
  async function ssoOrganization(orgId = uniqueId("org-")) {
    const domain = `${orgId}.example.org`;
    const created = await request("groups", "events/groups/create-group.json", {
      body: { profile: "org", id: orgId, name: "Acme Ltd" },
    });
    expect(created.statusCode).toBe(201);
    const configured = await request("groups", "events/orgs/sso-put.json", {
      params: { orgId },
      body: {
        issuer: used.provider.url,
        clientId: "acme-at-idp",
        clientSecret: "idp-secret",
        defaultRoles: ["SYS_MON"],
        claims: { givenName: "first_name" },
      },
      authorization: await systemBearer(["svc_groups", "svc_rights_full_access"]),
    });
    expect(configured.statusCode, configured.body).toBe(200);
    const authorization = await systemBearer(["svc_groups"]);
    const claimed = await request("groups", "events/orgs/domain-claim.json", {
      params: { orgId },
      body: { domain },
      authorization,
    });
    const { txt } = JSON.parse(claimed.body) as { txt: { name: string; value: string } };
    dns.zone.set(txt.name, [txt.value]);
    const domainCall = (sample: string, body?: object) =>
      request("groups", `events/orgs/${sample}.json`, { params: { orgId, domain }, authorization, body });
    expect((await domainCall("domain-verify")).statusCode).toBe(200);
    expect((await domainCall("domain-policy", { policy: "sso" })).statusCode).toBe(200);
    return { orgId, domain, setPolicy: (policy: string) => domainCall("domain-policy", { policy }) };
  }

  return { provider: () => used.provider, ssoOrganization };
}
