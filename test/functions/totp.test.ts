import { describe, expect, it } from "vitest";
import { keys } from "../../lib/store/keys";
import { createClient, seedAccount, systemBearer, userToken } from "../support/fixtures";
import { passwordLogin } from "../support/login";
import { request } from "../support/requests";
import { storedItem, storedItems } from "../support/stored";
import { totpCode } from "../support/totp-codes";

const code = totpCode;

const PASSWORD = "correct horse battery staple";
const WRONG_OTP = {
  type: "process_error",
  error: "wrong_otp_code",
  desc: "the code does not match an issued secret and the current time",
};

const items = storedItems;

async function issue(sub: string) {
  const response = await request("security", "events/security/totp-issue.json", {
    params: { subjectId: sub },
    authorization: await systemBearer(["svc_api_sys_usec_chg"]),
  });
  expect(response.statusCode).toBe(200);
  return response.json as { base64QRCode: string; base32Secret: string };
}

async function attach(sub: string, body: Record<string, unknown>) {
  return request("security", "events/security/totp-attach.json", {
    params: { subjectId: sub },
    body,
    authorization: await systemBearer(["svc_api_sys_usec_chg"]),
  });
}

async function list(sub: string) {
  return request("security", "events/security/totp-list.json", {
    params: { subjectId: sub },
    authorization: await systemBearer(["svc_api_sys_usec"]),
  });
}

describe("TOTP generators (interface §4.15)", () => {
  it("when a secret is issued, it answers a PNG QR code and keeps the secret pending and sealed", async () => {
    const account = await seedAccount();
    const issued = await issue(account.sub);
    expect(issued.base32Secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(Buffer.from(issued.base64QRCode, "base64").subarray(1, 4).toString()).toBe("PNG");
    const pending = await items(account.sub, "TOTPPENDING#");
    expect(pending).toHaveLength(1);
    expect(JSON.stringify(pending)).not.toContain(issued.base32Secret);
    expect(pending[0].expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect((await list(account.sub)).json).toEqual([]);
  });

  it("when the code of an issued secret is right, it stores a sealed generator the list shows without secret", async () => {
    const account = await seedAccount();
    const { base32Secret } = await issue(account.sub);
    const attached = await attach(account.sub, { base32Secret, otpCode: code(base32Secret), name: "phone" });
    expect(attached.statusCode).toBe(204);
    const listed = await list(account.sub);
    expect(listed.json).toEqual([{ id: expect.any(String), len: 6, name: "phone" }]);
    const stored = await items(account.sub, keys.totpPrefix);
    expect(JSON.stringify(stored)).not.toContain(base32Secret);
    expect(await items(account.sub, "TOTPPENDING#")).toEqual([]);
    // Taken once: the same secret does not attach a second generator.
    const again = await attach(account.sub, { base32Secret, otpCode: code(base32Secret, 30) });
    expect(again.json).toEqual(WRONG_OTP);
  });

  it("when the code is one step late it is accepted; three steps late it is refused", async () => {
    const account = await seedAccount();
    const { base32Secret } = await issue(account.sub);
    const late = await attach(account.sub, { base32Secret, otpCode: code(base32Secret, -90) });
    expect(late.statusCode).toBe(400);
    expect(late.json).toEqual(WRONG_OTP);
    expect((await attach(account.sub, { base32Secret, otpCode: code(base32Secret, -30) })).statusCode).toBe(204);
  });

  it("when the secret was not issued to this account, a right code for it is refused and nothing is stored", async () => {
    const owner = await seedAccount();
    const other = await seedAccount();
    const { base32Secret } = await issue(owner.sub);
    const invented = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    for (const secret of [base32Secret, invented]) {
      const response = await attach(other.sub, { base32Secret: secret, otpCode: code(secret) });
      expect(response.statusCode).toBe(400);
      expect(response.json).toEqual(WRONG_OTP);
    }
    expect(await items(other.sub, keys.totpPrefix)).toEqual([]);
  });

  it.each([
    [{ otpCode: "123456" }, "base32Secret"],
    [{ base32Secret: "not base32!", otpCode: "123456" }, "base32Secret"],
    [{ base32Secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", otpCode: 123456 }, "otpCode"],
  ])("when the attach body is %j, it answers 400 naming %s", async (body, pos) => {
    const account = await seedAccount();
    const response = await attach(account.sub, body);
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("wrong_values");
    expect((response.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toContain(pos);
  });

  it("when a wrong code is sent for an issued secret, it answers wrong_otp_code", async () => {
    const account = await seedAccount();
    const { base32Secret } = await issue(account.sub);
    const response = await attach(account.sub, { base32Secret, otpCode: "abcdef" });
    expect(response.json).toEqual(WRONG_OTP);
  });

  it("when a generator is deleted, the list is empty; deleting it again answers 404", async () => {
    const account = await seedAccount();
    const { base32Secret } = await issue(account.sub);
    await attach(account.sub, { base32Secret, otpCode: code(base32Secret) });
    const [{ id }] = (await list(account.sub)).json as unknown as Array<{ id: string }>;
    const remove = () =>
      request("security", "events/security/totp-delete.json", {
        params: { subjectId: account.sub, id },
        values: { totpId: id },
      });
    expect((await remove()).statusCode).toBe(204);
    expect((await list(account.sub)).json).toEqual([]);
    const again = await remove();
    expect(again.statusCode).toBe(404);
    expect(again.json).toEqual({ type: "process_error", error: "unknown_totp", desc: "no TOTP generator has this id" });
  });

  it("when a user enrols without the address headers, it is refused; with them it works", async () => {
    const account = await seedAccount();
    const token = await userToken(account.sub, ["svc_api_usec_chg"]);
    const bare = await request("security", "events/security/totp-issue.json", {
      params: { subjectId: account.sub },
      authorization: `Bearer ${token}`,
      headers: { "x-forwarded-for": null },
    });
    expect(bare.statusCode).toBe(400);
    const withHeaders = await request("security", "events/security/totp-issue.json", {
      params: { subjectId: account.sub },
      authorization: `Bearer ${token}`,
    });
    expect(withHeaders.statusCode).toBe(200);
  });
});

describe("second factor at login (interface §4.12 with 4.15)", () => {
  it("when requiredFactor is 2, the password grant needs a fresh code; a used code is refused", async () => {
    const account = await seedAccount({}, PASSWORD);
    const { base32Secret } = await issue(account.sub);
    const enrolCode = code(base32Secret);
    await attach(account.sub, { base32Secret, otpCode: enrolCode });
    const modes = await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { requiredFactor: 2 },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(modes.json).toMatchObject({ requiredFactor: 2 });

    const client = await createClient(["svc_api_user"]);
    const login = (otp?: string) =>
      passwordLogin(client, { scope: "svc_api_user", username: account.sub, password: PASSWORD, ...(otp && { otp }) });
    expect((await login()).json).toEqual({
      error: "invalid_grant",
      error_description: "a second factor is required: send otp or recovery_code",
    });
    const refusedReplay = { error: "invalid_grant", error_description: "the otp is not valid" };
    // The enrolment code is spent.
    expect((await login(enrolCode)).json).toEqual(refusedReplay);
    const next = code(base32Secret, 30);
    const ok = await login(next);
    expect(ok.statusCode).toBe(200);
    expect(ok.json.access_token).toEqual(expect.any(String));
    expect((await login(next)).json).toEqual(refusedReplay);
    // A wrong code counts as a failed login (the success in between cleared the earlier one).
    expect((await storedItem(keys.loginFailures(account.sub)))?.count).toBe(1);
  });
});
