import { describe, expect, it } from "vitest";
import { consentId } from "../../lib/store/consents";
import { createClient, seedAccount, systemBearer } from "../support/fixtures";
import { signedIn } from "../support/login";
import { request } from "../support/requests";

const PASSWORD = "correct horse battery staple";

async function login(client: { clientId: string; secret: string }, sub: string, scope: string) {
  return signedIn(client, { scope, username: sub, password: PASSWORD });
}

async function list(sub: string) {
  return request("audit", "events/audit/acls-list.json", {
    params: { subjectId: sub },
    authorization: await systemBearer(["svc_api_sys_usec"]),
  });
}

async function withdraw(sub: string, id: string) {
  return request("audit", "events/audit/acls-delete.json", {
    params: { subjectId: sub, id },
    values: { consentId: id },
    authorization: await systemBearer(["svc_api_sys_usec_chg"]),
  });
}

async function readAuth(sub: string, token: string) {
  return request("security", "events/security/auth-get.json", {
    params: { subjectId: sub },
    authorization: `Bearer ${token}`,
  });
}

describe("consents (acls, interface §4.16)", () => {
  it("when a user signs in to two applications, each gets one consent with its accumulated scopes", async () => {
    const account = await seedAccount({}, PASSWORD);
    const mail = await createClient(["svc_api_user", "svc_api_usec"]);
    const shop = await createClient(["svc_api_user"]);
    const before = Date.now();
    await login(mail, account.sub, "svc_api_user");
    await login(mail, account.sub, "svc_api_usec");
    await login(shop, account.sub, "svc_api_user");
    const response = await list(account.sub);
    expect(response.statusCode).toBe(200);
    const consents = response.json as unknown as Array<{
      id: string;
      updated: number;
      client_id: string;
      scopes: string[];
    }>;
    expect(consents).toHaveLength(2);
    expect(consents.find((c) => c.client_id === mail.clientId)).toEqual({
      id: consentId(mail.clientId),
      updated: expect.any(Number),
      client_id: mail.clientId,
      scopes: ["svc_api_usec", "svc_api_user"],
    });
    expect(consents.find((c) => c.client_id === shop.clientId)?.scopes).toEqual(["svc_api_user"]);
    for (const consent of consents) expect(consent.updated).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  });

  it("when a consent is withdrawn, that application's tokens are refused at once and the other's still work", async () => {
    const account = await seedAccount({}, PASSWORD);
    const mail = await createClient(["svc_api_usec"]);
    const shop = await createClient(["svc_api_usec"]);
    const mailTokens = await login(mail, account.sub, "svc_api_usec");
    const shopTokens = await login(shop, account.sub, "svc_api_usec");
    expect((await readAuth(account.sub, mailTokens.access_token)).statusCode).toBe(200);

    const response = await withdraw(account.sub, consentId(mail.clientId));
    expect(response.statusCode).toBe(204);
    expect((await readAuth(account.sub, mailTokens.access_token)).statusCode).toBe(401);
    expect((await readAuth(account.sub, shopTokens.access_token)).statusCode).toBe(200);
    expect(((await list(account.sub)).json as unknown as Array<{ client_id: string }>).map((c) => c.client_id)).toEqual(
      [shop.clientId],
    );
  });

  it("when the consent does not exist, it answers 404 unknown_consent", async () => {
    const account = await seedAccount();
    const response = await withdraw(account.sub, "no-such-consent");
    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({
      type: "process_error",
      error: "unknown_consent",
      desc: "the account granted no application under this id",
    });
  });

  it("when the id is malformed, it answers 400 wrong_values", async () => {
    const account = await seedAccount();
    const response = await withdraw(account.sub, "bad id!");
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("wrong_values");
  });
});
