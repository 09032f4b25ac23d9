import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { MAX_NOTICES_PER_ADDRESS_PER_HOUR } from "../../lib/domain/registration/register";
import { authorizationUseCases } from "../../lib/domain/sign-in/authorization";
import { TEXT } from "../../lib/pages/text";
import { keys } from "../../lib/store/keys";
import { invoke, sampleEvent, seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { type HttpBrowser, httpBrowser } from "../support/http-browser";
import { claimProblems } from "../support/invariants";
import { useSettings } from "../support/oauth-provider";
import { lastCode, outbox } from "../support/outbox";
import { request } from "../support/requests";
import { createPasskey } from "../support/soft-authenticator";
import { storedItem, storedItems } from "../support/stored";
import { startTally } from "../support/tally";

/**
 * The hosted pages' findings of issue 43's attack run (items 3, 5, 6, 7), replayed over
 * HTTP with cookies: max_age=0 answered from a live session, the registration telling
 * anyone an address is taken, a QR code signing in whichever browser posts it, and one
 * passkey credential id registered under two accounts. Each was accepted before its fix.
 */

const ORIGIN = "https://app.example.com";
const { issuer, relyingParty, startAuthorization } = await useHostedSignIn();
useSettings({ passkeys: { rpId: "example.com", rpName: "Example", origins: [ORIGIN] } });

const tally = startTally(import.meta.filename);
const T = TEXT.en;
const NEW_PASSWORD = "a brand new passphrase 42";

async function counted<T extends { status: number }>(answer: Promise<T>, bad = true): Promise<T> {
  const result = await answer;
  tally.answered(result.status);
  if (bad) tally.badInput();
  return result;
}

/** A relying party's authorization request opened in a fresh browser. */
async function openAuthorization(extra: Record<string, string> = {}, browser = httpBrowser()) {
  const rp = await relyingParty();
  const started = await startAuthorization(rp.config, rp.redirectUri, { ui_locales: "en", ...extra });
  const page = await counted(browser.open(started.url), false);
  const at = (path: string) => new URL(path, started.url);
  return { rp, started, browser, page, at };
}

/** Signs the browser in with the password; answers the redirect back to the client. */
async function signIn(opened: Awaited<ReturnType<typeof openAuthorization>>, login: string) {
  const { browser, at } = opened;
  return counted(
    browser.post(at("/svc/oauth/signin"), { ...browser.fields, username: login, password: PASSWORD }),
    false,
  );
}

const hostedSessions = async (sub: string) =>
  (await storedItems(sub, keys.sessionPrefix)).filter((s) => s.clientId === "svc-hosted");

async function setAuthTime(sub: string, sid: string, authTime: number) {
  await documentClient().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.session(sub, sid),
      UpdateExpression: "SET authTime = :t",
      ExpressionAttributeValues: { ":t": authTime },
    }),
  );
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("issue 43 item 3: max_age=0 asks for a fresh sign-in", () => {
  it("answers login_required to prompt=none&max_age=0 from a browser signed in this very second", async () => {
    const account = await seedAccount({}, PASSWORD);
    const first = await openAuthorization();
    expect((await signIn(first, account.sub)).status).toBe(303);
    const [session] = await hostedSessions(account.sub);
    // Pinned a second ahead, so the request lands within the sign-in's second however slow the machine.
    await setAuthTime(account.sub, session.sid as string, nowSeconds() + 1);

    const silent = await openAuthorization({ prompt: "none", max_age: "0" }, first.browser);
    const back = new URL(silent.page.location ?? "about:blank");
    await tally.invariant(() => {
      expect(silent.page.status).toBe(303);
      expect(back.searchParams.get("error")).toBe("login_required");
      expect(back.searchParams.get("code")).toBeNull();
      expect(back.searchParams.get("state")).toBe(silent.started.state);
    });
  });

  it("refuses the session as it stands when the sign-in's second is the request's (the use case itself)", async () => {
    const account = await seedAccount({}, PASSWORD);
    const opened = await openAuthorization();
    await signIn(opened, account.sub);
    const [session] = await hostedSessions(account.sub);
    const browser = await services().sessions.sessionAndAccount(account.sub, session.sid as string);
    const uc = authorizationUseCases({} as never);
    const request = { prompt: [], maxAge: 0 } as never;
    const live = { session: browser.session, account: browser.account } as never;
    await tally.invariant(async () => {
      expect(await uc.usableSession(live, request, session.authTime as number)).toBe(false);
    });
  });

  it("without prompt=none, shows the sign-in page, and the ID token's auth_time is the new sign-in's", async () => {
    const account = await seedAccount({}, PASSWORD);
    const first = await openAuthorization();
    await signIn(first, account.sub);
    const [session] = await hostedSessions(account.sub);
    await setAuthTime(account.sub, session.sid as string, nowSeconds() - 3600);

    const before = nowSeconds();
    const again = await openAuthorization({ max_age: "0" }, first.browser);
    expect(again.page.status).toBe(200);
    expect(again.page.html).toContain('name="password"');
    const done = await signIn(again, account.sub);
    expect(done.status).toBe(303);
    const tokens = await oidc.authorizationCodeGrant(again.rp.config, new URL(done.location as string), {
      pkceCodeVerifier: again.started.verifier,
      expectedState: again.started.state,
      expectedNonce: again.started.nonce,
      maxAge: 0,
    });
    await tally.invariant(() => {
      expect(tokens.claims()?.auth_time).toBeGreaterThanOrEqual(before);
    });
  });
});

/** The registration form of a fresh sign-in, posted with `fields`; answers the page and the browser. */
async function register(fields: Record<string, string>) {
  const opened = await openAuthorization();
  const { browser, at } = opened;
  await counted(browser.open(at(`/svc/oauth/register?interaction=${encodeURIComponent(browser.fields.interaction)}`)));
  const page = await counted(browser.post(at("/svc/oauth/register"), { ...browser.fields, ...fields }));
  const context = /name="context" value="([^"]*)"/.exec(page.html)?.[1];
  const confirm = (form: Record<string, string>) =>
    counted(browser.post(at("/svc/oauth/register/confirm"), { ...browser.fields, context: context ?? "", ...form }));
  return { page, context, confirm, browser };
}

/** The page with what differs between two addresses' registrations taken out. */
const shapeOf = (html: string, email: string) =>
  html
    .replaceAll(email, "EMAIL")
    .replace(/name="(context|interaction|csrf)" value="[^"]*"/g, 'name="$1" value=""')
    .replace(/\d{10}/g, "TIME");

describe("issue 43 item 5: the hosted registration does not tell who has an account", () => {
  it("answers a taken e-mail as a free one, tells its owner by message without a code, and never confirms it", async () => {
    const owner = await seedAccount({}, PASSWORD);
    const taken = owner.email?.value as string;
    const free = `${uniqueId("free")}@example.com`;
    const sentBefore = outbox(taken).length;

    const attack = await register({ email: taken, password: NEW_PASSWORD });
    const honest = await register({ email: free, password: NEW_PASSWORD });
    const notices = outbox(taken).slice(sentBefore);
    await tally.invariant(() => {
      expect(attack.page.status).toBe(honest.page.status);
      expect(attack.page.html).toContain(T.codeSentTo(taken));
      expect(attack.page.html).not.toContain(T.alreadyUsed(T.field.email));
      expect(shapeOf(attack.page.html, taken)).toBe(shapeOf(honest.page.html, free));
      // The owner hears of it, in words, and gets nothing that could finish a registration.
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({ channel: "email", subject: "Someone tried to register with your address" });
      expect(() => lastCode(taken)).toThrow(/no code/);
    });

    // Every guess is a wrong code, like a wrong guess at a free address's: no conflict is ever told.
    const guess = await attack.confirm({ email_code: "123456" });
    const stored = await storedItem(keys.registration(attack.context as string));
    await tally.invariant(async () => {
      expect(guess.status).toBe(200);
      expect(guess.html).toContain(T.codeWrong(2));
      expect(guess.html).not.toContain(T.alreadyUsed(T.field.email));
      expect(stored).toMatchObject({ entity: "registration", schemaVersion: 1, accountCreated: false });
      expect(stored?.contacts).toMatchObject({ email: { taken: true, confirmed: false } });
      expect(await services().accounts.claimOwner("email", taken)).toBe(owner.sub);
    });
  });

  it("sends the owner at most the hour's notices, while every registration still answers the codes page", async () => {
    const owner = await seedAccount({}, PASSWORD);
    const taken = owner.email?.value as string;
    const pages: Array<{ html: string }> = [];
    for (let i = 0; i < MAX_NOTICES_PER_ADDRESS_PER_HOUR + 2; i++) {
      pages.push((await register({ email: taken, password: NEW_PASSWORD })).page);
    }
    // Resends of a taken contact are notices too, under the same cap.
    const counter = await storedItem(keys.registrationNoticesSent("email", taken, Math.floor(nowSeconds() / 3600)));
    await tally.invariant(() => {
      for (const page of pages) expect(page.html).toContain(T.codeSentTo(taken));
      expect(outbox(taken)).toHaveLength(MAX_NOTICES_PER_ADDRESS_PER_HOUR);
      expect(counter).toMatchObject({ entity: "registration-notices-sent", schemaVersion: 1 });
    });
  });

  it("tells of a conflict only once the code proved the mailbox (an address taken meanwhile)", async () => {
    const email = `${uniqueId("late")}@example.com`;
    const started = await register({ email, password: NEW_PASSWORD });
    expect(started.page.html).toContain(T.codeSentTo(email));
    const code = lastCode(email);
    const rival = await seedAccount({ email: { value: email, verified: true } }, PASSWORD);
    const proved = await started.confirm({ email_code: code });
    await tally.invariant(async () => {
      expect(proved.status).toBe(200);
      expect(proved.html).toContain(T.alreadyUsed(T.field.email));
      expect(await services().accounts.claimOwner("email", email)).toBe(rival.sub);
    });
  });

  it("leaves the REST registration's answer as interface §4.4 has it: 409 already_used", async () => {
    const owner = await seedAccount({}, PASSWORD);
    const event = await sampleEvent("events/registration/register-with-codes.json", {
      sub: uniqueId("reg-"),
      email: owner.email?.value as string,
      phone: `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`,
    });
    const answer = await invoke("registration", event);
    tally.answered(answer.statusCode);
    await tally.invariant(() => {
      expect(answer.statusCode).toBe(409);
      expect(answer.json).toEqual({
        errors: [{ errMsg: "the value is already used by another account", field: "email" }],
        context: "",
      });
    });
  });
});

/** The desktop: the QR page of a fresh sign-in; answers the code it shows. */
async function showsQrCode() {
  const opened = await openAuthorization();
  const { browser, at } = opened;
  const page = await counted(
    browser.open(at(`/svc/oauth/qr-signin?interaction=${encodeURIComponent(browser.fields.interaction)}`)),
    false,
  );
  const code = /<code>([^<]+)<\/code>/.exec(page.html)?.[1] as string;
  return { ...opened, code };
}

async function phoneConfirms(sub: string, code: string) {
  const answer = await fetch(`${issuer}/api/v3/auth/qr/${code}/confirm`, {
    method: "POST",
    headers: {
      authorization: await userBearer(sub, ["svc_qr_auth"]),
      "x-forwarded-for": "198.51.100.7",
      "user-agent": "PhoneApp/1.0",
    },
  });
  tally.answered(answer.status);
  return answer.status;
}

const qrContinue = (browser: HttpBrowser, at: (path: string) => URL, code: string) =>
  counted(browser.post(at("/svc/oauth/qr-signin"), { ...browser.fields, qr_code: code }));

describe("issue 43 item 6: a QR sign-in signs in only the browser that showed the code", () => {
  it("gives another browser posting the confirmed code no session, and the desktop still signs in", async () => {
    const account = await seedAccount({}, PASSWORD);
    const desktop = await showsQrCode();
    expect(await phoneConfirms(account.sub, desktop.code)).toBe(204);

    const thief = await openAuthorization();
    const stolen = await qrContinue(thief.browser, thief.at, desktop.code);
    const afterTheft = await services().qrLogins.get(desktop.code, nowSeconds());
    await tally.invariant(async () => {
      expect(stolen.status).toBe(200);
      expect(stolen.location).toBeUndefined();
      expect([...thief.browser.cookies.keys()].some((name) => name.endsWith("svc_sso"))).toBe(false);
      expect(stolen.html).toContain(T.qrExpired);
      expect(afterTheft?.status).toBe("confirmed");
      expect(await hostedSessions(account.sub)).toEqual([]);
    });

    const own = await qrContinue(desktop.browser, desktop.at, desktop.code);
    await tally.invariant(async () => {
      expect(own.status).toBe(303);
      expect(own.location).toContain("code=");
      expect((await services().qrLogins.get(desktop.code, nowSeconds()))?.status).toBe("used");
      expect(await hostedSessions(account.sub)).toHaveLength(1);
    });
  });

  it("stores a digest of the browser's binding, never the cookie itself", async () => {
    const desktop = await showsQrCode();
    const stored = await storedItem(keys.qrLogin(desktop.code));
    await tally.invariant(() => {
      expect(stored?.browserBinding).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(stored)).not.toContain(desktop.browser.fields.csrf);
    });
  });
});

const CHANGE = ["svc_api_sys_usec_chg"];

async function passkeyOptions(sub: string) {
  return (
    await request("security", "events/security/passkey-options.json", {
      params: { subjectId: sub },
      authorization: await systemBearer(CHANGE),
    })
  ).json;
}

async function attach(sub: string, response: unknown) {
  const answer = await request("security", "events/security/passkey-attach.json", {
    params: { subjectId: sub },
    body: { response },
    authorization: await systemBearer(CHANGE),
  });
  tally.answered(answer.statusCode);
  return answer;
}

async function detach(sub: string, id: string) {
  const answer = await request("security", "events/security/passkey-delete.json", {
    params: { subjectId: sub, id },
    authorization: await systemBearer(CHANGE),
  });
  tally.answered(answer.statusCode);
  return answer;
}

describe("issue 43 item 7: a passkey credential id belongs to one account", () => {
  it("refuses another account's credential id, keeps the claim with its holder, and frees it on delete", async () => {
    const holder = await seedAccount();
    const intruder = await seedAccount();
    const first = createPasskey(await passkeyOptions(holder.sub), ORIGIN);
    expect((await attach(holder.sub, first.response)).statusCode).toBe(201);
    const id = first.passkey.id;

    const copy = createPasskey(await passkeyOptions(intruder.sub), ORIGIN, {
      credentialId: Buffer.from(id, "base64url"),
    });
    expect(copy.passkey.id).toBe(id);
    const refused = await attach(intruder.sub, copy.response);
    tally.badInput();
    await tally.invariant(async () => {
      expect(refused.statusCode).toBe(400);
      expect(refused.json).toMatchObject({ error: "wrong_passkey" });
      expect(await storedItems(intruder.sub, keys.passkeyPrefix)).toEqual([]);
      expect(await storedItem(keys.uniquePasskey(id))).toMatchObject({
        entity: "unique-passkey",
        schemaVersion: 1,
        owner: holder.sub,
      });
    });

    expect((await detach(holder.sub, id)).statusCode).toBe(204);
    await tally.invariant(async () => expect(await storedItem(keys.uniquePasskey(id))).toBeUndefined());
    const again = createPasskey(await passkeyOptions(intruder.sub), ORIGIN, {
      credentialId: Buffer.from(id, "base64url"),
    });
    expect((await attach(intruder.sub, again.response)).statusCode).toBe(201);
    await tally.invariant(async () => {
      expect((await storedItem(keys.uniquePasskey(id)))?.owner).toBe(intruder.sub);
      const items = [
        ...(await storedItems(holder.sub, keys.passkeyPrefix)),
        ...(await storedItems(intruder.sub, keys.passkeyPrefix)),
        (await storedItem(keys.uniquePasskey(id))) as Record<string, unknown>,
      ];
      expect(claimProblems(items)).toEqual([]);
    });
  });

  it("lets only one of two accounts racing for one credential id register it", async () => {
    const a = await seedAccount();
    const b = await seedAccount();
    const credentialId = Buffer.from(uniqueId("cred"));
    const [forA, forB] = await Promise.all([passkeyOptions(a.sub), passkeyOptions(b.sub)]);
    const answers = await Promise.all([
      attach(a.sub, createPasskey(forA, ORIGIN, { credentialId }).response),
      attach(b.sub, createPasskey(forB, ORIGIN, { credentialId }).response),
    ]);
    const id = credentialId.toString("base64url");
    const claim = await storedItem(keys.uniquePasskey(id));
    await tally.invariant(async () => {
      expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 400]);
      const winner = answers[0].statusCode === 201 ? a.sub : b.sub;
      expect(claim?.owner).toBe(winner);
      const held = [
        ...(await storedItems(a.sub, keys.passkeyPrefix)),
        ...(await storedItems(b.sub, keys.passkeyPrefix)),
      ];
      expect(held.map((p) => p.PK)).toEqual([keys.userPartition(winner)]);
    });
  });
});
