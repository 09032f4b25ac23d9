import { afterEach, describe, expect, it, vi } from "vitest";
import { services } from "../../lib/container";
import { createClient, seedAccount, systemBearer } from "../support/fixtures";
import { signedIn } from "../support/login";
import { request } from "../support/requests";
import { storedItems } from "../support/stored";
import { totpCode } from "../support/totp-codes";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";

async function audit(sub: string, query: Record<string, string> = {}) {
  return request("audit", "events/audit/events.json", {
    params: { subjectId: sub },
    query,
    authorization: await systemBearer(["svc_api_sys_uaud"]),
  });
}

async function seedEvents(sub: string, times: number[]) {
  for (const ts of times) {
    await services().events.record({
      sbj: sub,
      ts,
      type: `t${ts}`,
      cId: "app",
      ip: "203.0.113.9",
      ua: FIREFOX,
      result: "ok",
    });
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("security events read (interface §4.16, 6)", () => {
  it("when read without rql, it answers every event newest first with the raw User-Agent", async () => {
    const account = await seedAccount();
    const base = Date.now() - 10_000;
    await seedEvents(account.sub, [base + 1000, base + 3000, base + 2000]);
    const response = await audit(account.sub);
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual(
      [3000, 2000, 1000].map((d) => ({
        sbj: account.sub,
        ts: base + d,
        type: `t${base + d}`,
        cId: "app",
        ip: "203.0.113.9",
        ua: FIREFOX,
        result: "ok",
      })),
    );
  });

  it("when rql gives a period and a limit, it answers those events newest first", async () => {
    const account = await seedAccount();
    const base = Date.now() - 10_000;
    await seedEvents(account.sub, [base + 1000, base + 2000, base + 3000, base + 4000]);
    const period = await audit(account.sub, { rql: `and(ge(ts,${base + 2000}),le(ts,${base + 3000}))` });
    expect((period.json as unknown as Array<{ ts: number }>).map((e) => e.ts)).toEqual([base + 3000, base + 2000]);
    const limited = await audit(account.sub, { rql: `and(ge(ts,${base + 1000}),limit(1))` });
    expect((limited.json as unknown as Array<{ ts: number }>).map((e) => e.ts)).toEqual([base + 4000]);
  });

  it("when ua=parsed, it answers browser, os and device fields; ua=none leaves ua out", async () => {
    const account = await seedAccount();
    await seedEvents(account.sub, [Date.now() - 1000]);
    const parsed = await audit(account.sub, { ua: "parsed" });
    expect((parsed.json as unknown as Array<Record<string, unknown>>)[0].ua).toEqual({
      browser: "Firefox 130",
      os: "Linux",
      deviceType: "desktop",
      device: "",
    });
    const none = await audit(account.sub, { ua: "none" });
    expect((none.json as unknown as Array<Record<string, unknown>>)[0]).not.toHaveProperty("ua");
  });

  it.each(["or(eq(ts,1))", "and(ge(ts,abc))", "limit(0)", "limit(5000)", "ge(type,1)"])(
    "when rql is %s, it answers 400 wrong_value at rql",
    async (rql) => {
      const account = await seedAccount();
      const response = await audit(account.sub, { rql });
      expect(response.statusCode).toBe(400);
      expect(response.json).toMatchObject({ type: "input_error", error: "wrong_value", pos: "rql" });
      expect(response.json.desc).toContain("expected and(ge(ts,<ms>),le(ts,<ms>),limit(<n>))");
    },
  );

  it("when ua has an unknown form, it answers wrong_values", async () => {
    const account = await seedAccount();
    const response = await audit(account.sub, { ua: "full" });
    expect(response.statusCode).toBe(400);
    expect(response.json.error).toBe("wrong_values");
  });
});

describe("secrets never reach events or logs", () => {
  it("when a user signs in, enrols TOTP, uses it, sets and checks a security answer, no secret appears in any stored event or log line", async () => {
    const output: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      vi.spyOn(stream, "write").mockImplementation((chunk: unknown, ...rest: unknown[]) => {
        output.push(String(chunk));
        return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
      });
    }
    const password = "correct horse battery staple";
    const answer = "Mister Rex the Third";
    const account = await seedAccount({}, password);
    const scopes = "svc_api_usec svc_api_usec_chg svc_api_uaud";
    const client = await createClient(scopes.split(" "));
    const login = (otp?: string) =>
      signedIn(
        client,
        { scope: scopes, username: account.sub, password, ...(otp && { otp }) },
        { "user-agent": FIREFOX },
      );
    const first = await login();
    const asUser = { authorization: `Bearer ${first.access_token}`, headers: { "user-agent": FIREFOX } };
    const issued = await request("security", "events/security/totp-issue.json", {
      params: { subjectId: account.sub },
      ...asUser,
    });
    const secret = issued.json.base32Secret as string;
    const enrolCode = totpCode(secret, 0);
    expect(
      (
        await request("security", "events/security/totp-attach.json", {
          params: { subjectId: account.sub },
          body: { base32Secret: secret, otpCode: enrolCode },
          ...asUser,
        })
      ).statusCode,
    ).toBe(204);
    await request("security", "events/security/auth-change.json", {
      params: { subjectId: account.sub },
      body: { requiredFactor: 2 },
      ...asUser,
    });
    const loginCode = totpCode(secret, 30);
    const second = await login(loginCode);
    await request("security", "events/security/secqsn-set.json", {
      params: { subjectId: account.sub },
      body: { question: "Pet?", answer },
      ...asUser,
    });
    await request("security", "events/security/secqsn-check.json", {
      params: { subjectId: account.sub },
      body: { question: "Pet?", answer: "wrong guess here" },
      ...asUser,
    });
    await request("security", "events/security/secqsn-check.json", {
      params: { subjectId: account.sub },
      body: { question: "Pet?", answer },
      ...asUser,
    });

    const Items = await storedItems(account.sub, "EVENT#");
    const types = (Items ?? []).map((item) => item.type);
    expect(types).toEqual(expect.arrayContaining(["login", "totp_issue", "totp_attach", "secqsn_set", "secqsn_check"]));
    const stored = JSON.stringify(Items);
    const logged = output.join("");
    const secrets = [
      password,
      answer,
      answer.toLowerCase(),
      "wrong guess here",
      secret,
      enrolCode,
      loginCode,
      first.access_token,
      first.refresh_token,
      second.access_token,
      second.refresh_token,
    ];
    for (const value of secrets) {
      expect(stored).not.toContain(value);
      expect(logged).not.toContain(value);
    }
  });
});
