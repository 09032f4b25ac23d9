import { describe, expect, it } from "vitest";
import { passkeyDeps, services } from "../../lib/container";
import { backfillPasskeyClaims } from "../../lib/domain/passkeys/claim-backfill";
import { authenticationOptions, checkPasskey } from "../../lib/domain/passkeys/passkeys";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { useSettings } from "../support/oauth-provider";
import { request } from "../support/requests";
import { assert, createPasskey } from "../support/soft-authenticator";
import { storedItem, storedItems } from "../support/stored";
import { seedUnclaimedPasskey } from "../support/unclaimed-passkey";

const ORIGIN = "https://app.example.com";
useSettings({ passkeys: { rpId: "example.com", rpName: "Example", origins: [ORIGIN] } });

const READ = ["svc_api_sys_usec"];
const CHANGE = ["svc_api_sys_usec_chg"];

async function options(sub: string, authorization?: string) {
  return request("security", "events/security/passkey-options.json", {
    params: { subjectId: sub },
    authorization: authorization ?? (await systemBearer(CHANGE)),
  });
}

async function attach(sub: string, body: unknown, authorization?: string) {
  return request("security", "events/security/passkey-attach.json", {
    params: { subjectId: sub },
    body,
    authorization: authorization ?? (await systemBearer(CHANGE)),
  });
}

async function list(sub: string) {
  return request("security", "events/security/passkey-list.json", {
    params: { subjectId: sub },
    authorization: await systemBearer(READ),
  });
}

/** A passkey enrolled through the v3 routes, with the soft authenticator that holds it. */
async function enrolled(sub: string, name?: string) {
  const created = createPasskey((await options(sub)).json, ORIGIN, { synced: true });
  const answer = await attach(sub, { response: created.response, ...(name && { name }) });
  expect(answer.statusCode).toBe(201);
  return created.passkey;
}

async function events(sub: string, type: string) {
  return (await storedItems(sub, "EVENT#")).filter((e) => e.type === type);
}

const signInOptions = () => authenticationOptions(passkeyDeps(), "browser-csrf");

describe("passkey enrolment over the v3 interface", () => {
  it("answers creation options for the configured RP, the account's user handle, resident key and user verification", async () => {
    const account = await seedAccount();
    const answer = await options(account.sub);
    expect(answer.statusCode).toBe(200);
    expect(answer.json).toMatchObject({
      rp: { id: "example.com", name: "Example" },
      user: { id: Buffer.from(account.sub).toString("base64url"), name: account.email?.value },
      attestation: "none",
      authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
      excludeCredentials: [],
      timeout: 300_000,
    });
    // Nothing is stored before the answer comes back.
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
  });

  it("stores the passkey with its key and counter, lists it without them, and records the event", async () => {
    const account = await seedAccount();
    const created = createPasskey((await options(account.sub)).json, ORIGIN, { synced: true });
    const answer = await attach(account.sub, { response: created.response, name: "laptop" });
    expect(answer.statusCode).toBe(201);
    const view = {
      id: created.passkey.id,
      name: "laptop",
      createdAt: expect.any(Number),
      backedUp: true,
      deviceType: "multiDevice",
      transports: ["internal", "hybrid"],
    };
    expect(answer.json).toEqual(view);
    const stored = await storedItem(keys.passkey(account.sub, created.passkey.id));
    expect(stored).toMatchObject({ entity: "passkey", schemaVersion: 1, counter: 0, publicKey: expect.any(String) });
    const listed = await list(account.sub);
    expect(listed.json).toEqual([view]);
    expect(JSON.stringify(listed.json)).not.toContain(stored?.publicKey as string);
    expect(await events(account.sub, "passkey_add")).toEqual([
      expect.objectContaining({ result: "ok", prms: { passkey: created.passkey.id, name: "laptop", backedUp: true } }),
    ]);
    // The next options exclude it, so one authenticator is not enrolled twice.
    expect((await options(account.sub)).json.excludeCredentials).toEqual([
      { id: created.passkey.id, type: "public-key", transports: ["internal", "hybrid"] },
    ]);
  });

  it("takes a challenge once: the same answer again is refused and nothing more is stored", async () => {
    const account = await seedAccount();
    const opts = (await options(account.sub)).json;
    const first = createPasskey(opts, ORIGIN);
    expect((await attach(account.sub, { response: first.response })).statusCode).toBe(201);
    const second = createPasskey(opts, ORIGIN);
    const again = await attach(account.sub, { response: second.response });
    expect(again.statusCode).toBe(400);
    expect(again.json).toEqual({
      type: "process_error",
      error: "wrong_passkey",
      desc: "this passkey is registered already, or its challenge was used",
    });
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toHaveLength(1);
  });

  it.each([
    ["another account's challenge", "other-account", ORIGIN, true],
    ["a foreign origin", "same", "https://evil.example.net", true],
    ["no user verification", "same", ORIGIN, false],
  ])("refuses an answer with %s", async (_, whose, origin, userVerified) => {
    const account = await seedAccount();
    const other = await seedAccount();
    const opts = (await options(whose === "same" ? account.sub : other.sub)).json;
    const created = createPasskey(opts, origin as string, { userVerified: userVerified as boolean });
    const answer = await attach(account.sub, { response: created.response });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ error: "wrong_passkey" });
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
    expect(await storedItems(other.sub, keys.passkeyPrefix)).toEqual([]);
  });

  it.each([
    ["no response", {}],
    ["a wrong type", { response: { id: "a".repeat(22), rawId: "a".repeat(22), type: "password", response: {} } }],
    [
      "garbage attestation",
      {
        response: {
          id: "a".repeat(22),
          rawId: "a".repeat(22),
          type: "public-key",
          response: { clientDataJSON: "e30", attestationObject: "AAAA" },
        },
      },
    ],
    ["a name too long", { response: {}, name: "x".repeat(65) }],
  ])("answers %s with a 400 in the v3 shape and stores nothing", async (_, body) => {
    const account = await seedAccount();
    const answer = await attach(account.sub, body);
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({
      type: expect.any(String),
      error: expect.any(String),
      desc: expect.any(String),
    });
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
  });

  it("refuses a user token for another account and a token without the permission", async () => {
    const account = await seedAccount();
    const other = await seedAccount();
    const foreign = await options(account.sub, await userBearer(other.sub, ["svc_api_usec_chg"]));
    expect(foreign.statusCode).toBeGreaterThanOrEqual(400);
    expect(foreign.statusCode).toBeLessThan(500);
    const readOnly = await options(account.sub, await systemBearer(READ));
    expect(readOnly.statusCode).toBe(401);
    expect(readOnly.json).toMatchObject({ error: "bad_access_token" });
  });

  it("answers unknown_user for options of an account that does not exist", async () => {
    const answer = await options("no-such-user-here");
    expect(answer.statusCode).toBe(404);
    expect(answer.json).toMatchObject({ error: "unknown_user" });
  });
});

describe("passkey management over the v3 interface", () => {
  it("renames a passkey; an unknown id answers unknown_passkey", async () => {
    const account = await seedAccount();
    const passkey = await enrolled(account.sub);
    const renamed = await request("security", "events/security/passkey-rename.json", {
      params: { subjectId: account.sub, id: passkey.id },
      authorization: await systemBearer(CHANGE),
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json).toMatchObject({ id: passkey.id, name: "work laptop" });
    expect((await list(account.sub)).json).toEqual([expect.objectContaining({ name: "work laptop" })]);
    const unknown = await request("security", "events/security/passkey-rename.json", {
      params: { subjectId: account.sub, id: "unknown-credential-id-0000" },
      authorization: await systemBearer(CHANGE),
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json).toEqual({
      type: "process_error",
      error: "unknown_passkey",
      desc: "the account has no passkey with this id",
    });
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toHaveLength(1);
  });

  it("deletes a passkey with its event; deleting it again answers unknown_passkey", async () => {
    const account = await seedAccount();
    const passkey = await enrolled(account.sub);
    const remove = () =>
      systemBearer(CHANGE).then((authorization) =>
        request("security", "events/security/passkey-delete.json", {
          params: { subjectId: account.sub, id: passkey.id },
          authorization,
        }),
      );
    expect((await remove()).statusCode).toBe(204);
    expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
    expect(await events(account.sub, "passkey_delete")).toHaveLength(1);
    const again = await remove();
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ error: "unknown_passkey" });
  });
});

describe("signing in with a passkey (the check the hosted pages run)", () => {
  it("builds the request options as the library would, for the same challenge", async () => {
    const opts = await signInOptions();
    const { generateAuthenticationOptions } = await import("@simplewebauthn/server");
    const challenge = Buffer.from(opts.challenge, "base64url").toString("utf8");
    const library = await generateAuthenticationOptions({
      rpID: "example.com",
      challenge,
      timeout: 300_000,
      userVerification: "required",
    });
    expect(JSON.parse(JSON.stringify(library))).toEqual(opts);
    expect(opts).toMatchObject({ rpId: "example.com", userVerification: "required", timeout: 300_000 });
  });

  it("finds the account by the user handle, verifies, and records the use in the sign-in's commit", async () => {
    const account = await seedAccount();
    const passkey = await enrolled(account.sub);
    const opts = await signInOptions();
    expect(opts).toMatchObject({ rpId: "example.com", userVerification: "required" });
    // Discoverable: the browser offers every passkey of the RP, and the answer names its account.
    expect(opts.allowCredentials ?? []).toEqual([]);
    const proof = await checkPasskey(passkeyDeps(), assert(passkey, opts, ORIGIN) as never, "browser-csrf");
    expect(proof.account.sub).toBe(account.sub);
    expect(await services().passkeys.commit(proof.writes)).toBe(true);
    const stored = await storedItem(keys.passkey(account.sub, passkey.id));
    expect(stored?.lastUsed).toEqual(expect.any(Number));
    // The same answer again: its challenge is taken, so the commit is refused.
    const replay = await checkPasskey(passkeyDeps(), assert(passkey, opts, ORIGIN) as never, "browser-csrf");
    expect(await services().passkeys.commit(replay.writes)).toBe(false);
  });

  it("refuses a challenge bound to another browser, and a counter that went backwards", async () => {
    const account = await seedAccount();
    const passkey = await enrolled(account.sub);
    const opts = await signInOptions();
    await expect(
      checkPasskey(passkeyDeps(), assert(passkey, opts, ORIGIN) as never, "another-browser"),
    ).rejects.toMatchObject({ error: "wrong_passkey" });
    const counted = await checkPasskey(
      passkeyDeps(),
      assert(passkey, opts, ORIGIN, { counting: true }) as never,
      "browser-csrf",
    );
    expect(await services().passkeys.commit(counted.writes)).toBe(true);
    expect((await storedItem(keys.passkey(account.sub, passkey.id)))?.counter).toBe(1);
    // A cloned authenticator signs with a counter the service has seen already.
    await expect(
      checkPasskey(
        passkeyDeps(),
        assert(passkey, await signInOptions(), ORIGIN, { counter: 1 }) as never,
        "browser-csrf",
      ),
    ).rejects.toMatchObject({ error: "wrong_passkey" });
  });

  it("refuses a deleted passkey, and a second-factor check of another account's passkey", async () => {
    const account = await seedAccount();
    const other = await seedAccount();
    const passkey = await enrolled(account.sub);
    await expect(
      checkPasskey(passkeyDeps(), assert(passkey, await signInOptions(), ORIGIN) as never, "browser-csrf", other.sub),
    ).rejects.toMatchObject({ error: "unknown_passkey" });
    await services().passkeys.commit(services().passkeys.removeItems(account.sub, passkey.id));
    await expect(
      checkPasskey(passkeyDeps(), assert(passkey, await signInOptions(), ORIGIN) as never, "browser-csrf"),
    ).rejects.toMatchObject({ error: "unknown_passkey" });
  });

  it("lets only one of two sign-ins with one answer commit", async () => {
    const account = await seedAccount();
    const passkey = await enrolled(account.sub);
    const answer = assert(passkey, await signInOptions(), ORIGIN) as never;
    const proofs = await Promise.all([
      checkPasskey(passkeyDeps(), answer, "browser-csrf"),
      checkPasskey(passkeyDeps(), answer, "browser-csrf"),
    ]);
    const commits = await Promise.all(proofs.map((p) => services().passkeys.commit(p.writes)));
    expect(commits.filter(Boolean)).toHaveLength(1);
  });
});

describe("passkeys stored before credential id claims (svc-admin passkeys claim)", () => {
  const removeAs = async (sub: string, id: string) =>
    request("security", "events/security/passkey-delete.json", {
      params: { subjectId: sub, id },
      authorization: await systemBearer(CHANGE),
    });

  /** An account with a passkey stored before claims, another account, and that passkey's credential id. */
  async function unclaimedAndAnother() {
    const holder = await seedAccount();
    const other = await seedAccount();
    const credentialId = Buffer.from(uniqueId("cred"));
    const id = credentialId.toString("base64url");
    await seedUnclaimedPasskey(holder.sub, id);
    return { holder, other, credentialId, id };
  }

  it("once the backfill has claimed an old passkey's credential id, another account registering it is refused", async () => {
    const { holder, other: intruder, credentialId, id } = await unclaimedAndAnother();
    await backfillPasskeyClaims(services().passkeys);
    expect((await storedItem(keys.uniquePasskey(id)))?.owner).toBe(holder.sub);

    const copy = createPasskey((await options(intruder.sub)).json, ORIGIN, { credentialId });
    expect(copy.passkey.id).toBe(id);
    const refused = await attach(intruder.sub, { response: copy.response });
    expect(refused.statusCode).toBe(400);
    expect(refused.json).toMatchObject({ error: "wrong_passkey" });
    expect(await storedItems(intruder.sub, keys.passkeyPrefix)).toEqual([]);
    expect((await storedItem(keys.uniquePasskey(id)))?.owner).toBe(holder.sub);
  });

  it("deletes an old passkey whose credential id another account has claimed since, and keeps that account's claim", async () => {
    const { holder, other, credentialId, id } = await unclaimedAndAnother();
    // Before the backfill the old passkey has no claim, so another account can register its id.
    const copy = createPasskey((await options(other.sub)).json, ORIGIN, { credentialId });
    expect((await attach(other.sub, { response: copy.response })).statusCode).toBe(201);
    expect((await storedItem(keys.uniquePasskey(id)))?.owner).toBe(other.sub);

    expect((await removeAs(holder.sub, id)).statusCode).toBe(204);
    expect(await storedItems(holder.sub, keys.passkeyPrefix)).toEqual([]);
    expect(await events(holder.sub, "passkey_delete")).toHaveLength(1);
    expect(await storedItems(other.sub, keys.passkeyPrefix)).toHaveLength(1);
    expect((await storedItem(keys.uniquePasskey(id)))?.owner).toBe(other.sub);
    expect((await removeAs(holder.sub, id)).statusCode).toBe(404);

    // The claim's owner deletes its own passkey with the claim, as always.
    expect((await removeAs(other.sub, id)).statusCode).toBe(204);
    expect(await storedItem(keys.uniquePasskey(id))).toBeUndefined();
    expect(await storedItems(other.sub, keys.passkeyPrefix)).toEqual([]);
  });
});
