import { describe, expect, it, vi } from "vitest";
import { log, withLogContext } from "../../lib/log";
import { linesOf, useLogLevel } from "../support/log-lines";

describe("log lines", () => {
  useLogLevel("info");

  it("when a request is served, every line carries its request id and function", async () => {
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    await withLogContext({ requestId: "req-1", function: "federation" }, async () => {
      await Promise.resolve();
      log.info("external account linked", { fpType: "oidc" });
    });
    expect(linesOf(out)).toEqual([
      {
        level: "info",
        time: expect.any(String),
        message: "external account linked",
        requestId: "req-1",
        function: "federation",
        fpType: "oidc",
      },
    ]);
  });

  it("when fields name a secret, its value never reaches the line", () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    withLogContext({ requestId: "req-2", function: "passwords" }, () =>
      log.warn("notice not sent", { password: "hunter2-secret", nested: { client_secret: "s3cr3t", kept: 1 } }),
    );
    const [line] = linesOf(err);
    expect(line).toMatchObject({
      requestId: "req-2",
      password: "[redacted]",
      nested: { client_secret: "[redacted]", kept: 1 },
    });
    expect(JSON.stringify(line)).not.toMatch(/hunter2|s3cr3t/);
  });
});
