import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { keys } from "../../lib/store/keys";
import { startTxtServer } from "../support/dns-server";
import { invoke, sampleEvent, systemBearer, uniqueId } from "../support/fixtures";
import { useSettings } from "../support/oauth-provider";
import { orgWithAdmin } from "../support/organizations";
import { request } from "../support/requests";
import { storedItem } from "../support/stored";

/**
 * Verified domains (docs/organizations.md#verified-domains) on DynamoDB Local, their TXT
 * records served by a real DNS server on loopback (dns2) that the resolver setting names.
 */

const dns = await startTxtServer();
const zone = dns.zone;
afterAll(() => dns.close());

beforeEach(() => {
  useSettings({ organizations: { dnsResolvers: [dns.resolver], dnsTimeoutMs: 500 } });
  dns.state.failing = false;
});

const SAMPLES = {
  claim: "events/orgs/domain-claim.json",
  list: "events/orgs/domain-list.json",
  verify: "events/orgs/domain-verify.json",
  policy: "events/orgs/domain-policy.json",
  remove: "events/orgs/domain-remove.json",
} as const;

interface Claim {
  domain: string;
  state: "pending" | "verified";
  policy: string;
  txt: { name: string; value: string };
}

async function newOrg() {
  const id = uniqueId("org-");
  const created = await request("groups", "events/groups/create-group.json", { body: { profile: "org", id } });
  expect(created.statusCode).toBe(201);
  return id;
}

const newDomain = () => `${uniqueId("d")}.example`;

function routes(orgId: string, authorization: string) {
  const at = (domain: string) => ({ orgId, domain });
  return {
    claim: (domain: string) => request("groups", SAMPLES.claim, { params: { orgId }, body: { domain }, authorization }),
    list: () => request("groups", SAMPLES.list, { params: { orgId }, authorization }),
    verify: (domain: string) => request("groups", SAMPLES.verify, { params: at(domain), authorization }),
    policy: (domain: string, policy: string) =>
      request("groups", SAMPLES.policy, { params: at(domain), body: { policy }, authorization }),
    remove: (domain: string) => request("groups", SAMPLES.remove, { params: at(domain), authorization }),
  };
}

/** Claims `domain` for the organization and publishes its TXT record; answers the claim. */
async function claimed(api: ReturnType<typeof routes>, domain: string) {
  const answer = await api.claim(domain);
  expect(answer.statusCode).toBe(201);
  return answer.json as unknown as Claim;
}

const publish = (claim: Claim, value = claim.txt.value) => zone.set(claim.txt.name, [value]);

describe("claiming a domain", () => {
  it("when an admin claims a domain, it is pending with policy none and the answer names the TXT record to publish", async () => {
    const { orgId, token } = await orgWithAdmin();
    const domain = newDomain();
    const claim = await claimed(routes(orgId, token), domain.toUpperCase());
    expect(claim).toMatchObject({ domain, state: "pending", policy: "none" });
    expect(claim.txt.name).toBe(`_svc-identity-challenge.${domain}`);
    expect(claim.txt.value).toMatch(/^svc-identity-verification=[A-Za-z0-9_-]{32}$/);
    expect(await storedItem(keys.orgDomain(orgId, domain))).toMatchObject({ orgId, domain, state: "pending" });
    expect(await storedItem(keys.domainOwner(domain))).toBeUndefined();
    const again = await routes(orgId, token).claim(domain);
    expect([again.statusCode, (again.json as { error: string }).error]).toEqual([409, "domain_already_claimed"]);
    const list = await routes(orgId, token).list();
    expect(list.statusCode).toBe(200);
    expect((list.json as { domains: Claim[] }).domains).toEqual([
      expect.objectContaining({ domain, state: "pending" }),
    ]);
  });

  it.each([
    ["localhost", "at least two labels"],
    ["example.com.", "trailing dot"],
    ["a..example", "each label"],
    ["-a.example", "each label"],
    ["a_b.example", "pattern"],
    ["10.0.0.1", "IP address"],
    [`${"a".repeat(64)}.example`, "each label"],
    [`${"abcdefghi.".repeat(25)}example`, "253"],
  ])("when the domain is %s, it is refused (%s) and nothing is stored", async (domain, why) => {
    const { orgId, token } = await orgWithAdmin();
    const answer = await routes(orgId, token).claim(domain);
    expect(answer.statusCode).toBe(400);
    expect(JSON.stringify(answer.json)).toContain(why === "pattern" ? "domain" : why);
    expect((await routes(orgId, token).list()).json).toEqual({ domains: [] });
  });
});

describe("verifying a domain against a DNS server on loopback", () => {
  it("when the TXT record is missing or carries a wrong value, it is refused and nothing changes; the right value verifies it and writes the directory item", async () => {
    const { orgId, token } = await orgWithAdmin();
    const api = routes(orgId, token);
    const domain = newDomain();
    const claim = await claimed(api, domain);

    const missing = await api.verify(domain);
    expect(missing.statusCode).toBe(400);
    expect(missing.json).toMatchObject({ error: "domain_not_verified", params: { domain, unverified: false } });

    publish(claim, "svc-identity-verification=not-the-value");
    const wrong = await api.verify(domain);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json).toMatchObject({ error: "domain_not_verified" });
    expect(await storedItem(keys.orgDomain(orgId, domain))).toMatchObject({ state: "pending" });
    expect(await storedItem(keys.domainOwner(domain))).toBeUndefined();

    // Another record beside the right one is no obstacle.
    zone.set(claim.txt.name, ["v=spf1 -all", claim.txt.value]);
    const right = await api.verify(domain);
    expect(right.statusCode).toBe(200);
    expect(right.json).toMatchObject({ domain, state: "verified", policy: "none", verifiedAt: expect.any(Number) });
    expect(await storedItem(keys.domainOwner(domain))).toMatchObject({ domain, orgId, policy: "none" });
    expect(await services().domainDirectory.verifiedOwner(domain)).toEqual({ domain, orgId, policy: "none" });
  });

  it("when the record is removed, the next check through the API un-verifies the domain and deletes its directory item", async () => {
    const { orgId, token } = await orgWithAdmin();
    const api = routes(orgId, token);
    const domain = newDomain();
    const claim = await claimed(api, domain);
    publish(claim);
    expect((await api.verify(domain)).statusCode).toBe(200);
    // Checked again with the record still there: it stays verified.
    expect((await api.verify(domain)).json).toMatchObject({ state: "verified" });

    zone.delete(claim.txt.name);
    const gone = await api.verify(domain);
    expect(gone.statusCode).toBe(400);
    expect(gone.json).toMatchObject({ error: "domain_not_verified", params: { unverified: true } });
    expect(await storedItem(keys.orgDomain(orgId, domain))).toMatchObject({ state: "pending" });
    expect(await storedItem(keys.orgDomain(orgId, domain))).not.toHaveProperty("GSI1PK");
    expect(await storedItem(keys.domainOwner(domain))).toBeUndefined();
  });

  it("when the daily job re-checks verified domains, one whose record is gone is un-verified and one whose record holds stays", async () => {
    const { orgId, token } = await orgWithAdmin();
    const api = routes(orgId, token);
    const [kept, dropped] = [newDomain(), newDomain()];
    const keptClaim = await claimed(api, kept);
    const droppedClaim = await claimed(api, dropped);
    publish(keptClaim);
    publish(droppedClaim);
    expect((await api.verify(kept)).statusCode).toBe(200);
    expect((await api.verify(dropped)).statusCode).toBe(200);
    zone.delete(droppedClaim.txt.name);

    const { handler } = await import("../../functions/jobs");
    const result = await handler({ job: "domain-recheck" });
    expect(result).toMatchObject({ job: "domain-recheck", unverified: 1, unavailable: 0 });
    expect(await storedItem(keys.domainOwner(kept))).toMatchObject({ orgId });
    expect(await storedItem(keys.orgDomain(orgId, kept))).toMatchObject({ state: "verified" });
    expect(await storedItem(keys.domainOwner(dropped))).toBeUndefined();
    expect(await storedItem(keys.orgDomain(orgId, dropped))).toMatchObject({ state: "pending" });
  });

  it("when another organization verified the domain, a second one's verification is refused with 409 and the directory keeps the first", async () => {
    const first = await orgWithAdmin();
    const second = await orgWithAdmin();
    const domain = newDomain();
    const firstClaim = await claimed(routes(first.orgId, first.token), domain);
    const secondClaim = await claimed(routes(second.orgId, second.token), domain);
    publish(firstClaim);
    expect((await routes(first.orgId, first.token).verify(domain)).statusCode).toBe(200);

    zone.set(secondClaim.txt.name, [firstClaim.txt.value, secondClaim.txt.value]);
    const refused = await routes(second.orgId, second.token).verify(domain);
    expect(refused.statusCode).toBe(409);
    expect(refused.json).toMatchObject({ error: "domain_verified_elsewhere", params: { domain } });
    expect(await storedItem(keys.orgDomain(second.orgId, domain))).toMatchObject({ state: "pending" });
    expect(await storedItem(keys.domainOwner(domain))).toMatchObject({ orgId: first.orgId });
  });

  it("when the DNS server fails, the check answers 503 dns_unavailable and a verified domain stays verified", async () => {
    const { orgId, token } = await orgWithAdmin();
    const api = routes(orgId, token);
    const domain = newDomain();
    publish(await claimed(api, domain));
    expect((await api.verify(domain)).statusCode).toBe(200);
    dns.state.failing = true;
    const answer = await api.verify(domain);
    expect(answer.statusCode).toBe(503);
    expect(answer.json).toMatchObject({ error: "dns_unavailable" });
    expect(await storedItem(keys.domainOwner(domain))).toMatchObject({ orgId });
  });
});

describe("a domain's policy and removal", () => {
  it("when the policy is set, the claim and the directory item change together; removal deletes both", async () => {
    const { orgId, token } = await orgWithAdmin();
    const api = routes(orgId, token);
    const domain = newDomain();
    publish(await claimed(api, domain));
    expect((await api.verify(domain)).statusCode).toBe(200);

    const sso = await api.policy(domain, "sso");
    expect(sso.statusCode).toBe(200);
    expect(sso.json).toMatchObject({ domain, state: "verified", policy: "sso" });
    expect(await storedItem(keys.orgDomain(orgId, domain))).toMatchObject({ policy: "sso" });
    expect(await services().domainDirectory.verifiedOwner(domain)).toEqual({ domain, orgId, policy: "sso" });
    expect((await api.policy(domain, "everyone")).statusCode).toBe(400);
    expect(await storedItem(keys.orgDomain(orgId, domain))).toMatchObject({ policy: "sso" });

    const removed = await api.remove(domain);
    expect(removed.statusCode).toBe(204);
    expect(await storedItem(keys.orgDomain(orgId, domain))).toBeUndefined();
    expect(await storedItem(keys.domainOwner(domain))).toBeUndefined();
    const again = await api.remove(domain);
    expect([again.statusCode, (again.json as { error: string }).error]).toEqual([404, "domain_not_found"]);
  });

  it("when an application calls with svc_groups, every route works the same (system mode)", async () => {
    const orgId = await newOrg();
    const api = routes(orgId, await systemBearer(["svc_groups"]));
    const domain = newDomain();
    publish(await claimed(api, domain));
    expect((await api.verify(domain)).statusCode).toBe(200);
    expect((await api.policy(domain, "join")).statusCode).toBe(200);
    expect((await api.list()).json).toMatchObject({ domains: [{ domain, state: "verified", policy: "join" }] });
    expect((await api.remove(domain)).statusCode).toBe(204);
    const missing = await routes(uniqueId("org-"), await systemBearer(["svc_groups"])).list();
    expect(missing.statusCode).toBe(404);
  });

  it("when the organization is deleted, its verified domain's directory item goes with it", async () => {
    const orgId = await newOrg();
    const api = routes(orgId, await systemBearer(["svc_groups"]));
    const domain = newDomain();
    publish(await claimed(api, domain));
    expect((await api.verify(domain)).statusCode).toBe(200);
    await services().groups.delete("org", orgId);
    expect(await storedItem(keys.domainOwner(domain))).toBeUndefined();
    expect(await storedItem(keys.orgDomain(orgId, domain))).toBeUndefined();
  });
});

describe("organization admins see their own organization's domains only", () => {
  it("when the admin of one organization calls any domain route on another, it answers 404 group_not_found and nothing changes", async () => {
    const mine = await orgWithAdmin();
    const theirs = await orgWithAdmin();
    const domain = newDomain();
    const claim = await claimed(routes(theirs.orgId, theirs.token), domain);
    publish(claim);
    const before = await storedItem(keys.orgDomain(theirs.orgId, domain));

    const api = routes(theirs.orgId, mine.token);
    const answers = [
      await api.claim(newDomain()),
      await api.list(),
      await api.verify(domain),
      await api.policy(domain, "join"),
      await api.remove(domain),
    ];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(404);
      expect(answer.json).toMatchObject({ error: "group_not_found", params: { grpId: theirs.orgId } });
    }
    expect(await storedItem(keys.orgDomain(theirs.orgId, domain))).toEqual(before);
    expect(await storedItem(keys.domainOwner(domain))).toBeUndefined();
    expect((await routes(theirs.orgId, theirs.token).list()).json).toMatchObject({ domains: [{ domain }] });
  });
});

describe("policy join on registration", () => {
  async function register(email: string) {
    const sub = uniqueId("joiner-");
    const event = await sampleEvent("events/registration/register-confirmed.json", { sub, email });
    event.body = JSON.stringify({
      user: {
        attrs: { sub, family_name: "Orlova", email: { value: email, verified: true } },
        credentials: { password: "a long enough passphrase" },
      },
    });
    const response = await invoke("registration", event);
    expect(response.statusCode).toBeLessThan(300);
    return sub;
  }

  it("when a person registers with a confirmed address of a verified domain of policy join, the account joins the organization; under policy none, it does not", async () => {
    const orgId = await newOrg();
    const api = routes(orgId, await systemBearer(["svc_groups"]));
    const domain = newDomain();
    publish(await claimed(api, domain));
    expect((await api.verify(domain)).statusCode).toBe(200);

    const outsider = await register(`anna@${domain}`);
    expect(await storedItem(keys.groupMember("org", orgId, outsider))).toBeUndefined();

    expect((await api.policy(domain, "join")).statusCode).toBe(200);
    const joiner = await register(`Boris@${domain.toUpperCase()}`);
    expect(await storedItem(keys.groupMember("org", orgId, joiner))).toMatchObject({ sub: joiner });
    expect(await storedItem(keys.membership(joiner, "org", orgId))).toMatchObject({ groupId: orgId });
    const other = await register(`vera@${newDomain()}`);
    expect(await storedItem(keys.membership(other, "org", orgId))).toBeUndefined();
  });
});
