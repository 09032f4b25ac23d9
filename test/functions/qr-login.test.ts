import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { mintUserToken } from "../../lib/local/user-token";
import { createClient, invoke, sampleEvent, seedAccount, systemBearer } from "../support/fixtures";
import { basicCredentials, request } from "../support/requests";

async function start(client: { clientId: string; secret: string }) {
  const response = await invoke(
    "token",
    await sampleEvent("events/token/qr-start.json", { clientBasic: basicCredentials(client.clientId, client.secret) }),
  );
  return response;
}

async function poll(client: { clientId: string; secret: string }, qrCode: string) {
  return invoke(
    "token",
    await sampleEvent("events/token/qr-grant.json", {
      clientBasic: basicCredentials(client.clientId, client.secret),
      qrCode,
    }),
  );
}

async function decide(sub: string, qrCode: string, decision: "confirm" | "refuse" | "read") {
  const token = (await mintUserToken(sub, "phone-app", ["svc_qr_auth"], 600)).token;
  return request("security", `events/security/qr-${decision}.json`, {
    params: { qrCode },
    values: { qrCode },
    authorization: `Bearer ${token}`,
  });
}

describe("QR-code login (svc_qr_auth)", () => {
  it("when started, pending, read, confirmed and polled, the starting client gets the user's tokens once", async () => {
    const client = await createClient(["svc_api_user", "svc_api_uapps"]);
    const account = await seedAccount();
    const started = await start(client);
    expect(started.statusCode).toBe(200);
    expect(started.json).toMatchObject({ qr_code: expect.any(String), expires_in: 300, interval: 3 });
    expect(
      Buffer.from(started.json.qr_png as string, "base64")
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
    const code = started.json.qr_code as string;

    expect((await poll(client, code)).json).toEqual({
      error: "authorization_pending",
      error_description: "the user has not decided yet",
    });
    const read = await decide(account.sub, code, "read");
    expect(read.json).toMatchObject({
      client_id: client.clientId,
      scopes: ["svc_api_user", "svc_api_uapps"],
      ip: "203.0.113.10",
    });
    expect((await decide(account.sub, code, "confirm")).statusCode).toBe(204);

    const tokens = await poll(client, code);
    expect(tokens.statusCode).toBe(200);
    expect(decodeJwt(tokens.json.access_token as string)).toMatchObject({
      sub: account.sub,
      client_id: client.clientId,
    });
    expect(tokens.json).toMatchObject({ refresh_token: expect.any(String), id_token: expect.any(String) });
    expect((await poll(client, code)).json).toEqual({
      error: "invalid_grant",
      error_description: "the QR code was already used",
    });
    // A decided code can no longer be read or decided again.
    expect((await decide(account.sub, code, "refuse")).statusCode).toBe(404);
  });

  it("when the user refuses, the poll answers access_denied", async () => {
    const client = await createClient(["svc_api_user", "svc_api_uapps"]);
    const account = await seedAccount();
    const code = (await start(client)).json.qr_code as string;
    expect((await decide(account.sub, code, "refuse")).statusCode).toBe(204);
    expect((await poll(client, code)).json).toEqual({
      error: "access_denied",
      error_description: "the user refused the login",
    });
  });

  it("when another client polls, or the code is unknown, it answers invalid_grant or expired_token", async () => {
    const client = await createClient(["svc_api_user", "svc_api_uapps"]);
    const other = await createClient(["svc_api_user", "svc_api_uapps"]);
    const code = (await start(client)).json.qr_code as string;
    expect((await poll(other, code)).json.error).toBe("invalid_grant");
    expect((await poll(client, "a".repeat(32))).json).toEqual({
      error: "expired_token",
      error_description: "the QR code expired or is unknown; start again",
    });
  });

  it("when the code has expired, reading it is 404 and polling answers expired_token", async () => {
    const { qrGrant } = await import("../../lib/domain/login/qr-login");
    const { services, loginDeps } = await import("../../lib/container");
    const client = await createClient(["svc_api_user", "svc_api_uapps"]);
    const record = await services().clients.getWithSecrets(client.clientId);
    const account = await seedAccount();
    const now = Math.floor(Date.now() / 1000);
    await services().qrLogins.create({
      code: "expired-code-0123456789",
      clientId: client.clientId,
      scopes: ["svc_api_user"],
      status: "confirmed",
      sub: account.sub,
      createdAt: now - 600,
      expiresAt: now - 1,
    });
    expect((await decide(account.sub, "expired-code-0123456789", "read")).statusCode).toBe(404);
    await expect(
      qrGrant(
        services().qrLogins,
        record as never,
        "expired-code-0123456789",
        { ip: "1.2.3.4", userAgent: "t" },
        {
          ...loginDeps(),
          accounts: services().accounts,
        },
      ),
    ).rejects.toMatchObject({ code: "expired_token" });
  });

  it("when a system token or no user headers come, deciding is refused; asking user permissions not granted is invalid_scope", async () => {
    const client = await createClient(["svc_api_user", "svc_api_uapps"]);
    const code = (await start(client)).json.qr_code as string;
    const system = await request("security", "events/security/qr-confirm.json", {
      params: { qrCode: code },
      values: { qrCode: code },
      authorization: await systemBearer(["svc_groups"]),
    });
    expect(system.statusCode).toBe(401);
    const limited = await createClient(["svc_api_user"]);
    const event = await sampleEvent("events/token/qr-start.json", {
      clientBasic: basicCredentials(limited.clientId, limited.secret),
    });
    event.body = "scope=svc_api_uapps";
    expect((await invoke("token", event)).json.error).toBe("invalid_scope");
  });
});
