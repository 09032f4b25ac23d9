import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it, vi } from "vitest";
import { services } from "../../lib/container";
import { digestSecret } from "../../lib/domain/credentials/secret-digest";
import { deletePasskey } from "../../lib/domain/passkeys/passkeys";
import { keys } from "../../lib/store/keys";
import { createKeyRing, JWKS_MAX_AGE_SECONDS } from "../../lib/tokens/key-ring";
import { uniqueId } from "../support/fixtures";
import { storedItem, storedItems } from "../support/stored";
import { svcAdmin } from "../support/svc-admin";
import { seedUnclaimedPasskey } from "../support/unclaimed-passkey";

// Each case starts the real CLI several times (about a second each on an idle machine);
// a busy shared machine must not turn that into a failure.
vi.setConfig({ testTimeout: 120_000 });

// Tests run concurrently (each uses its own ids): most of their time is process start.

const workDir = mkdtempSync(join(tmpdir(), "svc-admin-test-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface ListedClient {
  clientId: string;
  scopes: string[];
  redirectUris: string[];
  hasRestPassword: boolean;
}

async function listedClients(): Promise<ListedClient[]> {
  const run = await svcAdmin("clients", "list", "--json");
  if (run.code !== 0) throw new Error(`clients list failed: ${run.stderr}`);
  return run.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ListedClient);
}

/** `svc-admin clients create --id ID --scopes SCOPES ...more`. */
const createClientCli = (id: string, scopes: string, ...more: string[]) =>
  svcAdmin("clients", "create", "--id", id, "--scopes", scopes, ...more);

describe.concurrent("svc-admin clients", () => {
  it("when a client is created without --secret, it prints a generated secret once that authenticates", async ({
    expect,
  }) => {
    const id = uniqueId("cli-");
    const run = await createClientCli(id, "svc_api_sys_users svc_groups", "--redirect-uris", "https://app.example/cb");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`client id: ${id}`);
    const secret = /client secret: (\S+)/.exec(run.stdout)?.[1] ?? "";
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(run.stdout.split(secret)).toHaveLength(2);
    const stored = await services().clients.getWithSecrets(id);
    expect(stored?.secretHash).toBe(digestSecret(secret));
    expect(await listedClients()).toContainEqual({
      clientId: id,
      scopes: ["svc_api_sys_users", "svc_groups"],
      redirectUris: ["https://app.example/cb"],
      hasRestPassword: false,
      public: false,
      // New clients get every grant but the password grant unless it is asked for.
      grantTypes: ["authorization_code", "refresh_token", "client_credentials", "urn:svc:params:oauth:grant-type:qr"],
      postLogoutRedirectUris: [],
      resources: [],
      firstParty: false,
      trustRelayedAddress: false,
      requirePushedAuthorizationRequests: false,
      idTokenSignedResponseAlg: "RS256",
      dpopBoundAccessTokens: false,
    });
  });

  it("when --scopes lists OpenID Connect scopes as an application's settings do, the client is created with its permissions", async ({
    expect,
  }) => {
    const id = uniqueId("oidc-");
    const run = await createClientCli(id, "openid profile email offline_access svc_api_user");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect((await services().clients.get(id))?.scopes).toEqual(["svc_api_user"]);
  });

  it("when --id-token-alg names ES256 it is stored; any other than RS256 or ES256 is refused and nothing is stored", async ({
    expect,
  }) => {
    const id = uniqueId("alg-");
    const run = await createClientCli(id, "svc_groups", "--id-token-alg", "ES256");
    expect(run.code).toBe(0);
    expect((await services().clients.get(id))?.idTokenSignedResponseAlg).toBe("ES256");
    const bad = uniqueId("alg-");
    const refused = await createClientCli(bad, "svc_groups", "--id-token-alg", "HS256");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("ID tokens are signed RS256 or ES256, not HS256");
    expect(await services().clients.get(bad)).toBeUndefined();
  });

  it("when --secret and --rest-password are given, it never echoes them and warns that they are short", async ({
    expect,
  }) => {
    const id = uniqueId("cli-");
    const secret = "short-chosen-secret";
    const restPassword = "short-rest-password";
    const run = await createClientCli(id, "svc_api_user", "--secret", secret, "--rest-password", restPassword);
    expect(run.code).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
    expect(`${run.stdout}${run.stderr}`).not.toContain(restPassword);
    expect(run.stdout).toContain("client secret: set from --secret");
    expect(run.stderr).toContain("warning: the client secret is shorter than 32 characters");
    expect(run.stderr).toContain("warning: the REST password is shorter than 32 characters");
    expect((await services().clients.getWithSecrets(id))?.secretHash).toBe(digestSecret(secret));
    expect((await listedClients()).find((c) => c.clientId === id)?.hasRestPassword).toBe(true);
  });

  it("when the id is taken, it exits 1 and says so", async ({ expect }) => {
    const id = uniqueId("cli-");
    expect((await createClientCli(id, "svc_api_user")).code).toBe(0);
    const again = await svcAdmin("clients", "create", "--id", id, "--scopes", "svc_api_user");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`client ${id} already exists`);
    expect(again.stdout).not.toContain("client secret");
  });

  it("when the definition is invalid, it exits 1 with the problems", async ({ expect }) => {
    const run = await createClientCli(uniqueId("cli-"), "no_such_permission");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("invalid client: unknown permissions: no_such_permission");
  });

  it("when --trust-relayed-address is given, a confidential client stores it and a public one is refused", async ({
    expect,
  }) => {
    const id = uniqueId("cli-");
    const run = await createClientCli(id, "svc_api_user", "--trust-relayed-address");
    expect(run.code).toBe(0);
    expect((await services().clients.get(id))?.trustRelayedAddress).toBe(true);
    const publicId = uniqueId("cli-");
    const refused = await createClientCli(
      publicId,
      "svc_api_user",
      "--public",
      "--redirect-uris",
      "https://app.example/cb",
      "--trust-relayed-address",
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("only a confidential client may have the address it relays trusted");
    expect(await services().clients.get(publicId)).toBeUndefined();
  });

  it("when a client is deleted, it leaves the list, and deleting it again exits 1", async ({ expect }) => {
    const id = uniqueId("cli-");
    expect((await createClientCli(id, "svc_api_user")).code).toBe(0);
    const table = await svcAdmin("clients", "list");
    expect(table.stdout).toMatch(/^CLIENT ID/);
    expect(table.stdout).toContain(id);
    const deleted = await svcAdmin("clients", "delete", "--id", id);
    expect(deleted).toMatchObject({ code: 0, stdout: `deleted client ${id}\n` });
    expect((await listedClients()).map((c) => c.clientId)).not.toContain(id);
    const again = await svcAdmin("clients", "delete", "--id", id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no client ${id}`);
  });
});

describe.concurrent("svc-admin clients release-dynamic", () => {
  it("when dynamic ids are released, they print one per line and registration can bind one", async ({ expect }) => {
    const run = await svcAdmin("clients", "release-dynamic", "--app", "mobile", "--count", "3");
    expect(run.code).toBe(0);
    const ids = run.stdout.trim().split("\n");
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(id).toMatch(/^dyn~mobile~[A-Za-z0-9_-]{16}$/);
    const check = await services().registrations.check("nobody-here", undefined, undefined, ids[0]);
    expect(check.dynamicClient).toBe("free");
  });

  it("when --app is missing or --count is out of range, it exits 2", async ({ expect }) => {
    expect((await svcAdmin("clients", "release-dynamic")).code).toBe(2);
    expect((await svcAdmin("clients", "release-dynamic", "--app", "m", "--count", "0")).code).toBe(2);
    expect((await svcAdmin("clients", "release-dynamic", "--app", "a~b")).code).toBe(2);
  });
});

// One after the other: concurrent rotations refuse each other.
describe("svc-admin keys", () => {
  it("when keys are rotated, JWKS publishes the new key at once and it signs only after the caches' time", async ({
    expect,
  }) => {
    const before = (await services().keyRing.jwks()).keys.map((k) => k.kid);
    expect(before.length).toBeGreaterThan(0);
    const run = await svcAdmin("keys", "rotate");
    expect(run.code).toBe(0);
    for (const alg of ["ES256", "RS256"] as const) {
      const kid = new RegExp(`new ${alg} signing key \\([^)]*\\): (\\S+)`).exec(run.stdout)?.[1] ?? "";
      const signsFrom = Date.parse(new RegExp(`${alg} signs from: (\\S+)`).exec(run.stdout)?.[1] ?? "") / 1000;
      expect(signsFrom - Date.now() / 1000).toBeGreaterThan(JWKS_MAX_AGE_SECONDS);
      services().keyRing.invalidate();
      expect((await services().keyRing.jwks()).keys.map((k) => k.kid)).toContain(kid);
      expect((await services().keyRing.signingKey(alg)).kid).not.toBe(kid);
      const later = createKeyRing(services().signingKeys, () => signsFrom);
      expect((await later.signingKey(alg)).kid).toBe(kid);
    }
  });

  it("when keys are rotated with --now (emergency), the new key signs at once", async ({ expect }) => {
    const run = await svcAdmin("keys", "rotate", "--now");
    expect(run.code).toBe(0);
    const retired = (/retired: (.+)/.exec(run.stdout)?.[1] ?? "").split(" ");
    services().keyRing.invalidate();
    for (const alg of ["ES256", "RS256"] as const) {
      const kid = new RegExp(`new ${alg} signing key \\([^)]*\\): (\\S+)`).exec(run.stdout)?.[1] ?? "";
      expect((await services().keyRing.jwks()).keys.map((k) => k.kid)).toEqual(
        expect.arrayContaining([kid, ...retired]),
      );
      expect((await services().keyRing.signingKey(alg)).kid).toBe(kid);
    }
  });
});

describe.concurrent("svc-admin users import", () => {
  it("when a line is bad, it imports the others, lists each error by line and exits 1", async ({ expect }) => {
    const sub = uniqueId("imp-");
    const email = `${sub}@example.com`;
    const file = join(workDir, "users.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ sub, given_name: "Ada", email: { value: email, verified: true } }),
        "{not json",
        JSON.stringify({ given_name: "Copy", email }),
        "",
      ].join("\n"),
    );
    const run = await svcAdmin("users", "import", file);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("imported 1, unchanged 0, failed 2\n");
    expect(run.stderr).toContain("line 2: not valid JSON");
    expect(run.stderr).toContain("line 3: email already used by another account");
    expect(await services().accounts.get(sub)).toMatchObject({ given_name: "Ada", email: { value: email } });
  });

  it("when every line imports, it exits 0", async ({ expect }) => {
    const file = join(workDir, "fine.jsonl");
    writeFileSync(file, `${JSON.stringify({ sub: uniqueId("imp-"), family_name: "Lovelace" })}\n`);
    const run = await svcAdmin("users", "import", file);
    expect(run).toMatchObject({ code: 0, stdout: "imported 1, unchanged 0, failed 0\n" });
  });

  it("when the file does not exist, it exits 1 without a stack trace", async ({ expect }) => {
    const run = await svcAdmin("users", "import", join(workDir, "missing.jsonl"));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc-admin: cannot read .*missing\.jsonl: ENOENT\n$/);
  });
});

/** The counts of a `passkeys claim` run. */
function claimCounts(stdout: string) {
  const found = /^claims written (\d+), existing (\d+), conflicts (\d+)\n$/.exec(stdout);
  if (!found) throw new Error(`unexpected output: ${stdout}`);
  return { written: Number(found[1]), existing: Number(found[2]), conflicts: Number(found[3]) };
}

// One after the other: each run reads every passkey of the file's table.
describe("svc-admin passkeys claim", () => {
  it("when passkeys were stored without claims, it writes theirs, and a second run writes none", async ({ expect }) => {
    const [ada, bob] = [uniqueId("old-"), uniqueId("old-")];
    const old = [
      { sub: ada, id: uniqueId("cred") },
      { sub: ada, id: uniqueId("cred") },
      { sub: bob, id: uniqueId("cred") },
    ];
    for (const { sub, id } of old) await seedUnclaimedPasskey(sub, id);
    const first = await svcAdmin("passkeys", "claim");
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(claimCounts(first.stdout)).toEqual({ written: 3, existing: 0, conflicts: 0 });
    for (const { sub, id } of old) {
      expect(await storedItem(keys.uniquePasskey(id))).toMatchObject({ entity: "unique-passkey", owner: sub });
    }
    const second = await svcAdmin("passkeys", "claim");
    expect(second.code).toBe(0);
    expect(claimCounts(second.stdout)).toEqual({ written: 0, existing: 3, conflicts: 0 });
  });

  it("when a credential id is held by two accounts, it names both and exits 2; the holder without the claim can delete its passkey", async ({
    expect,
  }) => {
    const [first, second] = [uniqueId("twin-"), uniqueId("twin-")];
    const id = uniqueId("c");
    await seedUnclaimedPasskey(first, id);
    await seedUnclaimedPasskey(second, id);
    const run = await svcAdmin("passkeys", "claim");
    expect(run.code).toBe(2);
    expect(claimCounts(run.stdout)).toMatchObject({ written: 1, conflicts: 1 });
    const owner = (await storedItem(keys.uniquePasskey(id)))?.owner as string;
    expect([first, second]).toContain(owner);
    const holder = owner === first ? second : first;
    expect(run.stderr).toBe(
      `conflict: credential id ${id.slice(0, 8)}... held by account ${holder} and claimed by account ${owner}\n`,
    );
    expect(run.stderr).not.toContain(id);

    // The holder deletes its passkey: the transaction's claim delete is refused (another
    // account's claim), so the passkey goes alone and the owner keeps its claim.
    const passkeys = services().passkeys;
    await deletePasskey({ passkeys, events: services().events }, holder, id, { ts: Date.now(), cId: "svc-admin-test" });
    expect(await storedItems(holder, keys.passkeyPrefix)).toEqual([]);
    expect(await storedItems(owner, keys.passkeyPrefix)).toHaveLength(1);
    expect((await storedItem(keys.uniquePasskey(id)))?.owner).toBe(owner);
    const again = await svcAdmin("passkeys", "claim");
    expect(again.code).toBe(0);
    expect(claimCounts(again.stdout)).toMatchObject({ written: 0, conflicts: 0 });
  });

  it("when it is given an option, it exits 2", async ({ expect }) => {
    const run = await svcAdmin("passkeys", "claim", "--id", "x");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("passkeys claim does not take --id");
  });
});

describe.concurrent("svc-admin usage", () => {
  it("when --help is given, it prints the usage and exits 0", async ({ expect }) => {
    const run = await svcAdmin("--help");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: svc-admin/);
  });

  it("when the command is unknown, it prints the usage and exits 2", async ({ expect }) => {
    const run = await svcAdmin("clients", "frobnicate");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command: clients frobnicate");
    expect(run.stderr).toContain("usage: svc-admin");
  });

  it("when a mistyped option carries a secret, the secret is not echoed", async ({ expect }) => {
    const run = await createClientCli("x", "svc_api_user", "--secrte=hunter22");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option --secrte");
    expect(run.stderr).not.toContain("hunter22");
  });

  it("when an option belongs to another command, it exits 2", async ({ expect }) => {
    const run = await svcAdmin("keys", "rotate", "--id", "x");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("keys rotate does not take --id");
  });
});
