import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { seedAccount } from "../../support/fixtures";

const run = promisify(execFile);

describe("npm run invoke", () => {
  it("when given a function and a sample event, it runs the handler on the local table and prints the response", async () => {
    await seedAccount({ sub: "sample-user" });
    const { stdout } = await run(
      "npm",
      ["run", "--silent", "invoke", "--", "users", "events/users/get-user-system.json"],
      {
        env: process.env,
      },
    );
    const printed = JSON.parse(stdout) as { statusCode: number; body: { sub: string; meta: { instanceId: string } } };
    expect(printed.statusCode).toBe(200);
    expect(printed.body.sub).toBe("sample-user");
    expect(printed.body.meta.instanceId).toBe("u1.c2FtcGxlLXVzZXI");
  });

  it("when the function name is unknown, it prints usage and exits 2", async () => {
    await expect(
      run("npm", ["run", "--silent", "invoke", "--", "nope", "events/meta/health.json"]),
    ).rejects.toMatchObject({
      code: 2,
    });
  });
});
