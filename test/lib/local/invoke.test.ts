import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { samplePassword } from "../../../scripts/bench/round-trips";
import { seedAccount } from "../../support/fixtures";

const run = promisify(execFile);

interface Printed {
  statusCode: number;
  headers: Record<string, string>;
  cookies?: string[];
  body: unknown;
}

async function invoke(fn: string, event: string): Promise<Printed> {
  const { stdout } = await run("npm", ["run", "--silent", "invoke", "--", fn, event], { env: process.env });
  return JSON.parse(stdout) as Printed;
}

beforeAll(async () => {
  // The sample account as `svc-admin users import events/sample-users.jsonl` leaves it.
  await seedAccount({ sub: "sample-user" }, samplePassword("sample-user"));
});

describe("npm run invoke", () => {
  it("when given a function and a sample event, it runs the handler on the local table and prints the response", async () => {
    const printed = (await invoke("users", "events/users/get-user-system.json")) as Printed & {
      body: { sub: string; meta: { instanceId: string } };
    };
    expect(printed.statusCode).toBe(200);
    expect(printed.body.sub).toBe("sample-user");
    expect(printed.body.meta.instanceId).toBe("u1.c2FtcGxlLXVzZXI");
  });

  it("when a sample names the account console's browser session, the console answers signed in; without it, 401", async () => {
    const signedIn = await invoke("account", "events/account/activity.json");
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.body).toContain("<h1");
    expect(signedIn.body).toContain("Recent activity");
    const signedOut = await invoke("account", "events/account/activity-signed-out.json");
    expect(signedOut.statusCode).toBe(401);
  }, 60_000);

  it("when the function name is unknown, it prints usage and exits 2", async () => {
    await expect(
      run("npm", ["run", "--silent", "invoke", "--", "nope", "events/meta/health.json"]),
    ).rejects.toMatchObject({
      code: 2,
    });
  });
});

describe("npm run invoke with the hosted sample events (the sample client registered by invoke itself)", () => {
  it("when the authorization request names sample-web, it answers the sign-in page and its CSRF cookie", async () => {
    const printed = await invoke("hosted", "events/hosted/authorize.json");
    expect(printed.statusCode).toBe(200);
    expect(printed.body).toContain('action="/svc/oauth/signin"');
    expect(printed.body).toContain('name="interaction"');
    expect(printed.cookies).toEqual([expect.stringMatching(/^svc_csrf=/)]);
  }, 60_000);

  it("when the sample user signs in, it answers the consent page of the third-party sample client and sets the browser session", async () => {
    const printed = await invoke("hosted", "events/hosted/sign-in.json");
    expect(printed.statusCode).toBe(200);
    expect(printed.body).toContain('action="/svc/oauth/consent"');
    expect(printed.cookies).toEqual(
      expect.arrayContaining([expect.stringMatching(/^svc_sso=/), expect.stringMatching(/^svc_ua=/)]),
    );
  }, 60_000);

  it("when logout names sample-web's registered post-logout URI, it sends the browser there with its state", async () => {
    const printed = await invoke("hosted", "events/hosted/logout.json");
    expect(printed.statusCode).toBe(303);
    expect(printed.headers.location).toBe("https://app.example/?state=bye");
  }, 60_000);
});
