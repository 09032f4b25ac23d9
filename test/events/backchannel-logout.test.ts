import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { handler } from "../../functions/events";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { LOGOUT_EVENT } from "../../lib/domain/sessions/backchannel-logout";
import { endedSessionsOf } from "../../lib/events/ended-sessions";
import { seedAccount, systemBearer } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { linesOf, useLogLevel } from "../support/log-lines";
import { useTableStream } from "../support/table-stream";

/**
 * OpenID Connect Back-Channel Logout 1.0, end to end: a relying party signs a user in
 * through chromium, the session ends, the table's stream runs through the events function
 * as Lambda would, and the relying party's back channel gets a logout token it verifies
 * with the published keys.
 */

const { issuer, relyingParty, startAuthorization, fillSignInForm, backAtClient, rp } = await useHostedSignIn();

/** A relying party's back channel: records each logout token; answers `status`. */
function backChannel() {
  const tokens: string[] = [];
  let status = 200;
  let server: Server | undefined;
  let url = "";
  beforeAll(async () => {
    const listening = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => {
        if (request.headers["content-type"] === "application/x-www-form-urlencoded") {
          tokens.push(new URLSearchParams(body).get("logout_token") ?? "");
        }
        response.writeHead(status).end();
      });
    });
    server = listening;
    await new Promise<void>((done) => listening.listen(0, "127.0.0.1", () => done()));
    url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/backchannel`;
  });
  afterAll(() => server?.close());
  return { tokens, url: () => url, answer: (code: number) => (status = code) };
}

const channel = backChannel();
const reader = useTableStream();

/** Runs what the stream committed since the last call through the events function. */
async function streamed() {
  const records = await reader().next();
  expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] });
  return records;
}

async function signedIn(party: Awaited<ReturnType<typeof relyingParty>>, login: string) {
  const started = await startAuthorization(party.config, party.redirectUri);
  const { context, page } = await fillSignInForm(started.url, login);
  const tokens = await oidc.authorizationCodeGrant(party.config, await backAtClient(page), {
    pkceCodeVerifier: started.verifier,
    expectedState: started.state,
    expectedNonce: started.nonce,
  });
  return { context, page, tokens };
}

describe("Back-Channel Logout", () => {
  it("when the user logs out, the client gets a logout token for the session its ID token named, verified with the JWKS", async () => {
    const account = await seedAccount({}, PASSWORD);
    const party = await relyingParty({ backchannelLogoutUri: channel.url() });
    const meta = party.config.serverMetadata();
    expect(meta).toMatchObject({ backchannel_logout_supported: true, backchannel_logout_session_supported: true });
    const { context, page, tokens } = await signedIn(party, account.sub);
    await streamed();
    const told = channel.tokens.length;

    await page.goto(
      oidc
        .buildEndSessionUrl(party.config, {
          id_token_hint: tokens.id_token as string,
          post_logout_redirect_uri: `${rp.url()}/bye`,
        })
        .toString(),
    );
    await backAtClient(page);
    await context.close();
    await streamed();

    expect(channel.tokens.length).toBe(told + 1);
    const logoutToken = channel.tokens[told];
    expect(decodeProtectedHeader(logoutToken)).toMatchObject({ alg: "RS256", typ: "logout+jwt" });
    const { payload } = await jwtVerify(logoutToken, createRemoteJWKSet(new URL(meta.jwks_uri as string)), {
      issuer,
      audience: party.clientId,
      typ: "logout+jwt",
      algorithms: ["RS256"],
      maxTokenAge: 120,
    });
    expect(payload.sub).toBe(account.sub);
    expect(payload.sid).toBe(tokens.claims()?.sid);
    expect(payload.events).toEqual({ [LOGOUT_EVENT]: {} });
    expect(payload).not.toHaveProperty("nonce");
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(120);
    expect(payload.jti).toBeTypeOf("string");
  });

  describe("when the client does not take it", () => {
    useLogLevel("warn");

    it("sessions reset over the API still end; the stream goes on, and the refusal is logged without the token", async () => {
      const account = await seedAccount({}, PASSWORD);
      const party = await relyingParty({ backchannelLogoutUri: channel.url() });
      const { context, tokens } = await signedIn(party, account.sub);
      await context.close();
      await streamed();
      channel.answer(503);
      const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      try {
        const reset = await fetch(`${issuer}/api/v3/users/${account.sub}/sessions/reset`, {
          method: "POST",
          headers: { authorization: await systemBearer(["svc_api_sys_usec_chg"]) },
        });
        expect(reset.status, await reset.text()).toBeLessThan(300);
        await streamed();
      } finally {
        channel.answer(200);
      }
      const lines = [...linesOf(stdout), ...linesOf(stderr)];
      const refusal = lines.find((l) => String(l.message).includes("back-channel logout refused"));
      expect(refusal).toMatchObject({ clientId: party.clientId });
      expect(JSON.stringify(lines)).not.toMatch(/logout_token|eyJ[\w-]+\.eyJ/);
      expect((await oidc.tokenIntrospection(party.config, tokens.access_token)).active).toBe(false);
    });
  });

  it("when the account is locked, each of its sessions' clients is told", async () => {
    const account = await seedAccount({}, PASSWORD);
    const party = await relyingParty({ backchannelLogoutUri: channel.url() });
    const { context, tokens } = await signedIn(party, account.sub);
    await context.close();
    await streamed();
    const told = channel.tokens.length;
    const lock = await fetch(`${issuer}/api/v3/users/${instanceIdOf(account.sub)}`, {
      method: "POST",
      headers: { authorization: await systemBearer(["svc_api_sys_users_chg"]), "content-type": "application/json" },
      body: JSON.stringify({ locked: true }),
    });
    expect(lock.status, await lock.text()).toBe(200);
    await streamed();
    expect(channel.tokens.length).toBe(told + 1);
    const { payload } = await jwtVerify(
      channel.tokens[told],
      createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)),
      {
        issuer,
        audience: party.clientId,
        typ: "logout+jwt",
      },
    );
    expect(payload).toMatchObject({ sub: account.sub, sid: tokens.claims()?.sid });
  });

  it("a session that expired (TTL) or belongs to a client without an address tells no one", () => {
    const old = {
      entity: "session",
      sub: "u",
      sid: "s",
      clientId: "c",
      backchannelLogout: { uri: "https://rp.example/bc", alg: "RS256" },
    };
    const change = { id: "1", sequence: "1", kind: "REMOVE" as const, at: 0, expired: false, oldImage: old };
    expect(endedSessionsOf([change])).toHaveLength(1);
    expect(endedSessionsOf([{ ...change, expired: true }])).toEqual([]);
    expect(endedSessionsOf([{ ...change, oldImage: { ...old, backchannelLogout: undefined } }])).toEqual([]);
    expect(endedSessionsOf([{ ...change, kind: "MODIFY", newImage: old }])).toEqual([]);
  });
});
