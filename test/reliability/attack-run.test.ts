import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { createOutboxSender } from "../../lib/notify/outbox-sender";
import { seedAccount, systemBearer, uniqueId, userBearer } from "../support/fixtures";
import { request } from "../support/requests";
import { expectVersionShape } from "../support/route-samples";
import { storedItems } from "../support/stored";
import { startTally } from "../support/tally";

/**
 * The attack run of issue 21 (items 1, 8, 9, 10), replayed: a user granting itself a
 * right over another account, a refused call writing into another account's security
 * events, prototype names as keys of free-form maps, and control characters in e-mail
 * addresses and in what the local outbox prints. Each was accepted before its fix.
 */

const tally = startTally(import.meta.filename);

async function counted<T extends { statusCode: number }>(answer: Promise<T>): Promise<T> {
  const result = await answer;
  tally.answered(result.statusCode);
  tally.badInput();
  return result;
}

function rightsChange(body: unknown, authorization: string) {
  return counted(request("rights", "events/rights/change-rights-user.json", { body, authorization }));
}

describe("issue 21 item 1: rights over another account are never self-granted", () => {
  it("when a user grants itself change_password over another account, it is refused and the victim's password holds", async () => {
    const attacker = await seedAccount();
    const victim = await seedAccount();
    const token = await userBearer(attacker.sub, ["svc_user_rights", "svc_change_password"]);
    const grant = await rightsChange(
      { update: [{ subject: attacker.sub, object: victim.sub, rights: ["change_password"], tags: ["t"] }], delete: [] },
      token,
    );
    const takeover = await counted(
      request("passwords", "events/passwords/subordinate-password.json", {
        params: { subjectId: victim.sub },
        body: { value: "Taken-Over-Password-77" },
        authorization: token,
      }),
    );
    await tally.invariant(async () => {
      expect(grant.statusCode, grant.body).toBe(400);
      expect((grant.json.errors as Array<{ code: string }>)[0].code).toBe("validation_error");
      expect(await services().rights.hasRight(attacker.sub, victim.sub, "change_password")).toBe(false);
      expect(takeover.statusCode).not.toBe(200);
      expectVersionShape("v2", takeover.statusCode, takeover.json, takeover.body);
    });
  });

  it("when a user token names another account as subject, it answers 400 validation_error and applies nothing", async () => {
    const caller = await seedAccount();
    const other = await seedAccount();
    const third = await seedAccount();
    const response = await rightsChange(
      { update: [{ subject: other.sub, object: third.sub, rights: ["change_password"], tags: ["t"] }], delete: [] },
      await userBearer(caller.sub, ["svc_user_rights"]),
    );
    await tally.invariant(async () => {
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json.errors).toEqual([
        expect.objectContaining({ code: "validation_error", params: { field: "update.0.subject" } }),
      ]);
      expect(await services().rights.hasRight(other.sub, third.sub, "change_password")).toBe(false);
    });
  });
});

describe("issue 21 item 8: a refused call is recorded under its caller", () => {
  it("when a user reads another account's rights, the refusal lands in the caller's events, none in the victim's", async () => {
    const caller = await seedAccount();
    const victim = await seedAccount();
    const response = await counted(
      request("rights", "events/rights/rights-of-user-user-mode.json", {
        params: { subjectId: victim.sub },
        authorization: await userBearer(caller.sub, ["svc_user_rights"]),
        headers: { "user-agent": "planted-agent", "x-forwarded-for": "198.51.100.66" },
      }),
    );
    await tally.invariant(async () => {
      expect(response.statusCode).toBe(401);
      expect(await storedItems(victim.sub, "EVENT#")).toEqual([]);
      expect(await storedItems(caller.sub, "EVENT#")).toEqual([
        expect.objectContaining({
          sbj: caller.sub,
          result: "bad_access_token",
          prms: { route: "rights.of-user", target: victim.sub },
        }),
      ]);
    });
  });
});

describe("issue 21 item 9: prototype names as keys of free-form maps", () => {
  const NAMES = ["constructor", "__proto__", "prototype"];

  it("when user properties add one, it answers 400 wrong_values and stores nothing", async () => {
    const account = await seedAccount();
    for (const name of NAMES) {
      const response = await counted(
        request("users", "events/users/props-change.json", {
          params: { subjectId: account.sub },
          body: `{"add": {${JSON.stringify(name)}: "x"}}`,
        }),
      );
      await tally.invariant(async () => {
        expect(response.statusCode, `${name}: ${response.body}`).toBe(400);
        expect(response.json).toMatchObject({ error: "wrong_values" });
        expect(await services().properties.get(account.sub)).toEqual({ props: {}, version: 0 });
      });
    }
  });

  it("when a group is created or changed with one as an attribute, it answers 400 validation_error", async () => {
    const authorization = await systemBearer(["svc_groups"]);
    const id = uniqueId("grp");
    const created = await request("groups", "events/groups/create-group.json", {
      body: { profile: "org", id },
      authorization,
    });
    tally.answered(created.statusCode);
    expect(created.statusCode, created.body).toBe(201);
    for (const name of NAMES) {
      const body = (extra: Record<string, unknown>) =>
        `{${JSON.stringify(name)}: "x", ${Object.entries(extra)
          .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
          .join(", ")}}`;
      const create = await counted(
        request("groups", "events/groups/create-group.json", {
          body: body({ profile: "org", id: uniqueId("grp") }),
          authorization,
        }),
      );
      const change = await counted(
        request("groups", "events/groups/change-group.json", {
          params: { groupId: id },
          query: { profile: "org" },
          body: body({ profile: "org" }),
          authorization,
        }),
      );
      await tally.invariant(() => {
        for (const response of [create, change]) {
          expect(response.statusCode, `${name}: ${response.body}`).toBe(400);
          expect((response.json.errors as Array<{ code: string }>)[0].code).toBe("validation_error");
        }
      });
    }
  });
});

describe("issue 21 item 10: control characters in e-mail addresses", () => {
  const CONTROLS = { ESC: "\u001b", BEL: "\u0007", NUL: "\u0000", CSI: "\u009b" };

  it("when a registration or a change of e-mail carries one, it is refused and nothing is stored", async () => {
    for (const [name, control] of Object.entries(CONTROLS)) {
      const sub = uniqueId("reg-");
      const email = `a${control}[31m${uniqueId("x")}@example.com`;
      const registered = await counted(
        request("registration", "events/registration/register-with-codes.json", {
          body: {
            user: {
              attrs: { sub, family_name: "Sidorova", email: { value: email, verified: false } },
              credentials: { password: "violet-Kettle-42-river" },
            },
          },
        }),
      );
      const account = await seedAccount();
      const changed = await counted(
        request("users", "events/users/change-email-with-code.json", {
          params: { subjectId: account.sub },
          body: { email: { value: email, vrf: false } },
        }),
      );
      await tally.invariant(async () => {
        expect(registered.statusCode, `${name}: ${registered.body}`).toBe(400);
        expect(registered.json.errors).toEqual([expect.objectContaining({ field: "email" })]);
        expect(await services().accounts.get(sub)).toBeUndefined();
        expect(changed.statusCode, `${name}: ${changed.body}`).toBe(400);
        expect((await services().accounts.get(account.sub))?.email?.value).toBe(account.email?.value);
      });
    }
  });

  it("when the local outbox echoes a message, control characters are escaped", async () => {
    const lines: string[] = [];
    const sender = createOutboxSender(join(tmpdir(), `outbox-${uniqueId()}.jsonl`), (line) => lines.push(line));
    await sender.send({ channel: "sms", to: "7999\u001b]0;x\u0007", text: "code\u0000 1234\u009b2J", lang: "en" });
    await tally.invariant(() => {
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toMatch(/\p{Cc}/u);
      expect(lines[0]).toContain("\\u001b");
    });
  });
});
