import { afterAll, describe, expect, it } from "vitest";
import { documentClient } from "../../lib/document-client";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { ENTITY, keys } from "../../lib/store/keys";
import { createClient, invoke, sampleEvent, seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { expectClaimsConsistent } from "../support/invariants";
import { passwordLogin } from "../support/login";
import { loseAnswers } from "../support/lost-answers";
import { lastCode } from "../support/outbox";
import { basicCredentials, request } from "../support/requests";
import { storedItem, storedItems } from "../support/stored";
import { tableSnapshot } from "../support/table-snapshot";
import { startTally } from "../support/tally";

/**
 * A write that DynamoDB applied but whose answer was lost (timeout) is retried safely:
 * by the SDK (same request, same TransactWriteItems ClientRequestToken) or, when the
 * error reached the caller as a 503, by the caller sending the same HTTP request again.
 * Neither applies anything twice nor answers 500.
 */

const tally = startTally(import.meta.filename);
const inside = loseAnswers(documentClient(), "inside");
const outside = loseAnswers(documentClient(), "outside");
afterAll(() => {
  inside.remove();
  outside.remove();
});

const TRANSACTION = "TransactWriteItemsCommand";
type Layer = "inside" | "outside";
const faults = { inside, outside };

async function send(run: () => Promise<{ statusCode: number; body: string; json: Record<string, unknown> }>) {
  const result = await run();
  tally.answered(result.statusCode);
  return result;
}

/** Sends once with the next transaction's answer lost, then (when that surfaced) once more. */
async function withLostAnswer<R extends { statusCode: number; body: string }>(layer: Layer, run: () => Promise<R>) {
  const lostBefore = faults[layer].lost;
  faults[layer].arm(TRANSACTION);
  tally.fault();
  const first = await run();
  tally.answered(first.statusCode);
  // The fault did happen: a transaction was applied and its answer thrown away.
  expect(faults[layer].lost).toBe(lostBefore + 1);
  if (process.env.LOST_ANSWERS_DEBUG) console.log(layer, first.statusCode, first.body.slice(0, 200));
  if (layer === "inside") return { first, retried: undefined };
  await tally.invariant(() => expect(first.statusCode, first.body).toBe(503));
  const retried = await run();
  tally.answered(retried.statusCode);
  if (process.env.LOST_ANSWERS_DEBUG) console.log("retried", retried.statusCode, retried.body.slice(0, 200));
  return { first, retried };
}

async function itemsWhere(match: (item: Record<string, unknown>) => boolean) {
  return [...(await tableSnapshot()).values()].map((v) => JSON.parse(v) as Record<string, unknown>).filter(match);
}

function registrationEvent(sub: string, email: string, verified: boolean) {
  return async () => {
    const event = await sampleEvent("events/registration/register-confirmed.json", { sub, email });
    event.body = JSON.stringify({
      user: { attrs: { sub, family_name: "Lost", given_name: "Lena", email: { value: email, verified } } },
    });
    return invoke("registration", event);
  };
}

describe.each(["inside", "outside"] as const)(
  "an applied write whose answer was lost (%s the SDK's retries)",
  (layer) => {
    it("when it was a registration, the account exists once with its claim and one session, and no 500", async () => {
      const sub = uniqueId("lost-");
      const email = `${sub}@example.com`;
      const { first, retried } = await withLostAnswer(layer, registrationEvent(sub, email, true));
      await tally.invariant(async () => {
        if (layer === "inside") expect(first.statusCode, first.body).toBe(200);
        else expect([200, 409], retried?.body).toContain(retried?.statusCode);
        expect(await itemsWhere((i) => i.entity === ENTITY.user && i.sub === sub)).toHaveLength(1);
        expect((await itemsWhere((i) => i.entity === ENTITY.session && i.sub === sub)).length).toBeLessThanOrEqual(1);
      });
      await tally.invariant(expectClaimsConsistent);
    });

    it("when it was the last confirmation code, the account exists once with one session, and no 500", async () => {
      const sub = uniqueId("lost-code-");
      const email = `${sub}@example.com`;
      const started = await send(registrationEvent(sub, email, false));
      expect(started.statusCode, started.body).toBe(200);
      const code = lastCode(email);
      const { first, retried } = await withLostAnswer(layer, async () => {
        const event = await sampleEvent("events/registration/confirm-email-code.json", {
          context: started.json.context as string,
          code,
        });
        return invoke("registration", event);
      });
      await tally.invariant(async () => {
        if (layer === "inside") expect(first.json.subject, first.body).toBe(sub);
        else expect(retried?.statusCode, retried?.body).not.toBe(500);
        expect(await itemsWhere((i) => i.entity === ENTITY.user && i.sub === sub)).toHaveLength(1);
        expect(await itemsWhere((i) => i.entity === ENTITY.session && i.sub === sub)).toHaveLength(1);
      });
      await tally.invariant(expectClaimsConsistent);
    });

    it("when it was a rights assignment, the rights are as asked once, both directions agree, and no 500", async () => {
      const lead = await seedAccount({ email: undefined, phone_number: undefined });
      const member = await seedAccount({ email: undefined, phone_number: undefined });
      const token = await systemBearer(["svc_rights_full_access"]);
      const body = { subject: lead.sub, object: member.sub, rights: ["SYS_MON"], tags: ["a", "b"] };
      const { first, retried } = await withLostAnswer(layer, () =>
        request("rights", "events/rights/assign-rights.json", { body, authorization: token }),
      );
      const of = await send(() =>
        request("rights", "events/rights/rights-of-user.json", {
          params: { subjectId: lead.sub },
          authorization: token,
        }),
      );
      const on = await send(() =>
        request("rights", "events/rights/rights-on-user.json", {
          params: { subjectId: member.sub },
          authorization: token,
        }),
      );
      await tally.invariant(() => {
        expect((retried ?? first).statusCode, (retried ?? first).body).toBe(204);
        expect(of.json).toEqual({ [member.sub]: { SYS_MON: ["a", "b"] } });
        expect(on.json).toEqual({ [lead.sub]: ["SYS_MON"] });
      });
    });
  },
);

/** Conditional single-item updates: the SDK's retry of an applied one meets its own write. */
describe("an applied update whose answer was lost below the SDK's retries", () => {
  const UPDATE = "UpdateItemCommand";

  it("when it counted a wrong code, the code is counted once", async () => {
    const sub = uniqueId("lost-wrong-");
    const email = `${sub}@example.com`;
    const started = await send(registrationEvent(sub, email, false));
    const context = started.json.context as string;
    const code = lastCode(email);
    const wrongCode = code === "000000" ? "111111" : "000000";
    const lostBefore = inside.lost;
    inside.arm(UPDATE);
    tally.fault();
    const answer = await send(async () =>
      invoke(
        "registration",
        await sampleEvent("events/registration/confirm-email-code.json", { context, code: wrongCode }),
      ),
    );
    await tally.invariant(async () => {
      expect(inside.lost).toBe(lostBefore + 1);
      expect(answer.statusCode, answer.body).toBe(200);
      expect((answer.json.instructions as Array<{ attemts?: number }>)[0].attemts).toBe(2);
      const [pending] = await itemsWhere((i) => i.entity === ENTITY.registration && i.context === context);
      expect((pending.contacts as { email: { attemptsLeft: number } }).email.attemptsLeft).toBe(2);
    });
  });

  it("when it rotated a refresh token, the grant answers new tokens that work and the session lives on", async () => {
    const password = "Lost-Rotation-Password-9";
    const account = await seedAccount({}, password);
    const client = await createClient(["svc_api_user"]);
    const login = await send(() => passwordLogin(client, { scope: "svc_api_user", username: account.sub, password }));
    const basic = basicCredentials(client.clientId, client.secret);
    const refresh = (token: string) =>
      send(async () =>
        invoke(
          "token",
          await sampleEvent("events/token/refresh-token-grant.json", { clientBasic: basic, refreshToken: token }),
        ),
      );
    const lostBefore = inside.lost;
    inside.arm(UPDATE);
    tally.fault();
    const rotated = await refresh(login.json.refresh_token as string);
    await tally.invariant(async () => {
      expect(inside.lost).toBe(lostBefore + 1);
      expect(rotated.statusCode, rotated.body).toBe(200);
      const again = await refresh(rotated.json.refresh_token as string);
      expect(again.statusCode, again.body).toBe(200);
    });
  });

  it("when it counted a failed login, the failure counts once for the account, its hour and the address", async () => {
    const account = await seedAccount({}, "Lost-Failure-Password-9");
    const client = await createClient(["svc_api_user"]);
    // An address of this test alone, so its counter starts at nothing.
    const address = `198.51.100.${Math.floor(Math.random() * 200) + 20}, 203.0.113.${Math.floor(Math.random() * 200) + 20}`;
    const lostBefore = inside.lost;
    // The attempt is taken on the account's, the hour's and the addresses' counters in one
    // transaction, before the password is judged: applied, its answer lost.
    inside.arm(TRANSACTION);
    tally.fault();
    const answer = await send(() =>
      passwordLogin(
        client,
        { scope: "svc_api_user", username: account.sub, password: "not-the-password" },
        { "x-forwarded-for": address },
      ),
    );
    await tally.invariant(async () => {
      expect(inside.lost).toBe(lostBefore + 1);
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json).toMatchObject({ error: "invalid_grant" });
      // The consecutive count and this hour's (the table snapshot leaves counters out).
      const ofAccount = await storedItems(account.sub, "LOGIN_FAILURES");
      expect(ofAccount.map((i) => i.count)).toEqual([1, 1]);
      const hour = Math.floor(Date.now() / 1000 / 3600);
      expect(await storedItem(keys.ipFailures(address.split(",")[0], hour))).toMatchObject({ count: 1 });
    });
  });

  it("when it took or gave back a security-answer attempt, each counts once", async () => {
    const account = await seedAccount();
    const auth = (scope: string) => systemBearer([scope]);
    const question = { question: "First pet?", answer: "Rex" };
    const set = await send(async () =>
      request("security", "events/security/secqsn-set.json", {
        params: { subjectId: account.sub },
        body: question,
        authorization: await auth("svc_api_sys_usec_chg"),
      }),
    );
    expect(set.statusCode, set.body).toBeLessThan(300);
    const check = async (answer: string) =>
      send(async () =>
        request("security", "events/security/secqsn-check.json", {
          params: { subjectId: account.sub },
          body: { question: question.question, answer },
          authorization: await auth("svc_api_sys_usec"),
        }),
      );
    const attempts = async () => (await storedItems(account.sub, "SECQSN_FAILURES#"))[0]?.count as number | undefined;
    const lostBefore = inside.lost;
    // A wrong answer: the attempt's update applied, its answer lost, the SDK sends it again.
    inside.arm(UPDATE);
    tally.fault();
    const wrongAnswer = await check("Felix");
    // A right answer: its attempt is given back, that answer lost too.
    inside.arm(UPDATE, 2);
    tally.fault();
    const rightAnswer = await check("Rex");
    await tally.invariant(async () => {
      expect(inside.lost).toBe(lostBefore + 3);
      expect(wrongAnswer.json).toMatchObject({ error: "wrong_security_answer" });
      expect(rightAnswer.statusCode, rightAnswer.body).toBeLessThan(300);
      // One wrong answer counted; the right one taken and given back, once each.
      expect(await attempts()).toBe(1);
    });
  });

  it("when it stored a resent code, the resend counts once and the code that went out works", async () => {
    const sub = uniqueId("lost-resend-");
    const phone = `7999${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const started = await send(async () =>
      invoke(
        "registration",
        await sampleEvent("events/registration/register-with-codes.json", {
          sub,
          phone,
          email: `${sub}@example.com`,
        }),
      ),
    );
    const context = started.json.context as string;
    const lostBefore = inside.lost;
    inside.arm(UPDATE);
    tally.fault();
    const resent = await send(async () =>
      invoke("registration", await sampleEvent("events/registration/resend-sms-code.json", { context })),
    );
    await tally.invariant(async () => {
      expect(inside.lost).toBe(lostBefore + 1);
      expect(resent.statusCode, resent.body).toBe(200);
      const [pending] = await itemsWhere((i) => i.entity === ENTITY.registration && i.context === context);
      // The first code and one resend.
      expect((pending.contacts as { phone_number: { sent: number } }).phone_number.sent).toBe(2);
      const confirmed = await send(async () =>
        invoke(
          "registration",
          await sampleEvent("events/registration/confirm-sms-code.json", { context, code: lastCode(phone) }),
        ),
      );
      expect(confirmed.statusCode, confirmed.body).toBe(200);
    });
  });

  it("when it counted a wrong contact-change code, the code is counted once", async () => {
    const account = await seedAccount();
    const email = `${uniqueId("change")}@example.com`;
    const change = await send(() =>
      request("users", "events/users/change-email-with-code.json", {
        params: { subjectId: instanceIdOf(account.sub) },
        values: { email },
      }),
    );
    const state = (change.json.notes as { actions: Array<{ state: string }> }).actions[0].state;
    const code = lastCode(email);
    const lostBefore = inside.lost;
    inside.arm(UPDATE);
    tally.fault();
    const answer = await send(() =>
      request("users", "events/users/validate-email.json", {
        values: { state, code: code === "000000" ? "111111" : "000000" },
      }),
    );
    await tally.invariant(() => {
      expect(inside.lost).toBe(lostBefore + 1);
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json).toEqual({ msg: "wrong_code", attempts_left: 2 });
    });
  });
});
