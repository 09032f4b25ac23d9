import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { registrationDeps } from "../../lib/container";
import { type RegistrationBody, register } from "../../lib/domain/registration/register";
import { ENTITY } from "../../lib/store/keys";
import { invoke, sampleEvent, uniqueId } from "../support/fixtures";
import { expectClaimsConsistent } from "../support/invariants";
import { lastCode } from "../support/outbox";
import { confirmRegistration } from "../support/requests";
import { tableSnapshot } from "../support/table-snapshot";
import { startTally } from "../support/tally";

/**
 * One account per e-mail, phone and sub however registrations race: at once (confirmed
 * contacts), at the last confirmation code (pending registrations), and with
 * registration.createBeforeConfirm; a code is accepted at most once and not after its
 * attempts ran out. After each race every uniqueness claim points at an existing account
 * whose contact it is, and every account's contacts have their claim (no orphans).
 */

const tally = startTally(import.meta.filename);
const RACERS = 20;

function randomPhone(): string {
  return `7${String(Math.floor(Math.random() * 1e10)).padStart(10, "0")}`;
}

async function registerEvent(sample: string, values: Record<string, string>, body?: unknown) {
  const event = await sampleEvent(`events/registration/${sample}.json`, { sub: "x", email: "x", ...values });
  if (body !== undefined) event.body = JSON.stringify(body);
  const result = await invoke("registration", event);
  tally.answered(result.statusCode);
  return result;
}

async function confirm(context: string, body: Record<string, string>) {
  const result = await confirmRegistration(context, body);
  tally.answered(result.statusCode);
  return result;
}

function confirmedBody(attrs: Record<string, unknown>) {
  return { user: { attrs: { family_name: "Racer", given_name: "Rita", ...attrs } } };
}

/** The stored accounts (profiles) whose attribute satisfies `match`. */
async function accountsWhere(match: (profile: Record<string, unknown>) => boolean) {
  const items = [...(await tableSnapshot()).values()].map((v) => JSON.parse(v) as Record<string, unknown>);
  return items.filter((i) => i.entity === ENTITY.user && match(i));
}

async function expectOneWinner(answers: Array<{ statusCode: number; body: string }>, field: string) {
  await tally.invariant(() => {
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(1);
    for (const lost of answers.filter((a) => a.statusCode !== 200)) {
      expect(lost.statusCode, lost.body).toBe(409);
      expect(JSON.parse(lost.body).errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });
}

describe("registration races", () => {
  it("when registrations race for one phone number, exactly one account has it", async () => {
    const phone = randomPhone();
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () =>
        registerEvent("register-confirmed", {}, confirmedBody({ phone_number: { value: phone, verified: true } })),
      ),
    );
    await expectOneWinner(answers, "phone_number");
    await tally.invariant(async () =>
      expect(await accountsWhere((p) => (p.phone_number as { value?: string })?.value === phone)).toHaveLength(1),
    );
    await tally.invariant(expectClaimsConsistent);
  });

  it("when registrations race for one sub with different contacts, exactly one account exists and no loser's contact is claimed", async () => {
    const sub = uniqueId("race-sub-");
    const answers = await Promise.all(
      Array.from({ length: RACERS }, () =>
        registerEvent(
          "register-confirmed",
          {},
          confirmedBody({
            sub,
            email: { value: `${uniqueId("m")}@example.com`, verified: true },
            phone_number: { value: randomPhone(), verified: true },
          }),
        ),
      ),
    );
    await expectOneWinner(answers, "sub");
    await tally.invariant(async () => expect(await accountsWhere((p) => p.sub === sub)).toHaveLength(1));
    await tally.invariant(expectClaimsConsistent);
  });

  it("when pending registrations of one e-mail send their last codes at once, exactly one account is created", async () => {
    const email = `${uniqueId("pending")}@example.com`;
    const contexts: string[] = [];
    // One after the other: each needs its own code in the outbox.
    for (let i = 0; i < 8; i++) {
      const started = await registerEvent(
        "register-confirmed",
        {},
        confirmedBody({ sub: uniqueId("pending-"), email: { value: email, verified: false } }),
      );
      expect(started.statusCode, started.body).toBe(200);
      contexts.push(JSON.parse(started.body).context);
      contexts.push(lastCode(email));
    }
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => confirm(contexts[2 * i], { email_code: contexts[2 * i + 1] })),
    );
    await tally.invariant(() => {
      expect(answers.filter((a) => a.statusCode === 200 && a.json.subject)).toHaveLength(1);
      for (const a of answers) expect(a.statusCode, a.body).not.toBe(500);
    });
    await tally.invariant(async () =>
      expect(await accountsWhere((p) => (p.email as { value?: string })?.value === email)).toHaveLength(1),
    );
    await tally.invariant(expectClaimsConsistent);
  });

  it("when registrations race for one e-mail with createBeforeConfirm, exactly one account is created at once", async () => {
    const deps = {
      ...registrationDeps(),
      settings: { ...config().settings, registration: { createBeforeConfirm: true } },
    };
    const email = `${uniqueId("early")}@example.com`;
    const caller = { clientId: "race-app", language: "en" as const, ip: "203.0.113.9", userAgent: "race" };
    const outcomes = await Promise.allSettled(
      Array.from({ length: RACERS }, () =>
        register(
          {
            user: {
              attrs: { sub: uniqueId("early-"), given_name: "Eve", email: { value: email, verified: false } },
            },
          } as RegistrationBody,
          caller,
          deps,
        ),
      ),
    );
    tally.answered(200, outcomes.length);
    await tally.invariant(() => {
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      for (const o of outcomes.filter((o) => o.status === "rejected")) {
        expect((o as PromiseRejectedResult).reason).toMatchObject({ status: 409 });
      }
    });
    await tally.invariant(async () =>
      expect(await accountsWhere((p) => (p.email as { value?: string })?.value === email)).toHaveLength(1),
    );
    await tally.invariant(expectClaimsConsistent);
  });
});

describe("confirmation codes under concurrent answers", () => {
  it("when the right last code is sent many times at once, it is accepted once: one account, one session", async () => {
    const email = `${uniqueId("once")}@example.com`;
    const sub = uniqueId("once-");
    const started = await registerEvent(
      "register-confirmed",
      {},
      confirmedBody({ sub, email: { value: email, verified: false } }),
    );
    const code = lastCode(email);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => confirm(started.json.context as string, { email_code: code })),
    );
    await tally.invariant(async () => {
      expect(answers.filter((a) => a.statusCode === 200 && a.json.subject === sub)).toHaveLength(1);
      for (const a of answers) expect(a.statusCode, a.body).not.toBe(500);
      const items = [...(await tableSnapshot()).values()].map((v) => JSON.parse(v) as Record<string, unknown>);
      expect(items.filter((i) => i.entity === ENTITY.session && i.sub === sub)).toHaveLength(1);
    });
  });

  it("when wrong and right codes arrive together, the right one is accepted at most once and never after the attempts ran out", async () => {
    const attempts = config().settings.codes.attempts;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 * attempts }),
        fc.integer({ min: 1, max: 3 }),
        async (wrong, right) => {
          const email = `${uniqueId("mix")}@example.com`;
          const started = await registerEvent(
            "register-confirmed",
            {},
            confirmedBody({ sub: uniqueId("mix-"), email: { value: email, verified: false } }),
          );
          const context = started.json.context as string;
          const code = lastCode(email);
          const wrongCode = code === "000000" ? "111111" : "000000";
          const answers = await Promise.all([
            ...Array.from({ length: wrong }, () => confirm(context, { email_code: wrongCode })),
            ...Array.from({ length: right }, () => confirm(context, { email_code: code })),
          ]);
          const accepted = answers.filter((a) => a.statusCode === 200 && a.json.subject);
          const wrongCounted = answers.filter((a) =>
            (a.json.instructions as Array<{ attemts?: number }> | undefined)?.some((i) => i.attemts !== undefined),
          );
          await tally.invariant(async () => {
            for (const a of answers) expect(a.statusCode, a.body).not.toBe(500);
            expect(accepted.length).toBeLessThanOrEqual(1);
            // Each counted wrong answer spent one attempt: never more than there were.
            expect(wrongCounted.length).toBeLessThanOrEqual(attempts);
            if (accepted.length === 0) {
              // Not accepted: only because the attempts ran out first, and then for good.
              expect(wrong).toBeGreaterThanOrEqual(attempts);
              const later = await confirm(context, { email_code: code });
              expect(later.json.subject).toBeUndefined();
            }
          });
        },
      ),
      { seed: 20261121, numRuns: 8 },
    );
  });
});
