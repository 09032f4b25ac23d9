import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { documentClient } from "../../lib/document-client";
import { ANSWER_CHECKS_PER_HOUR } from "../../lib/domain/security/security-question";
import { keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, userBearer } from "../support/fixtures";
import { request } from "../support/requests";

const wrong = (desc: string) => ({ type: "process_error", error: "wrong_security_answer", desc });

async function set(sub: string, body: unknown) {
  return request("security", "events/security/secqsn-set.json", {
    params: { subjectId: sub },
    body,
    authorization: await systemBearer(["svc_api_sys_usec_chg"]),
  });
}

async function check(sub: string, body: unknown) {
  return request("security", "events/security/secqsn-check.json", {
    params: { subjectId: sub },
    body,
    authorization: await systemBearer(["svc_api_sys_usec"]),
  });
}

async function read(sub: string) {
  return request("security", "events/security/secqsn-get.json", {
    params: { subjectId: sub },
    authorization: await systemBearer(["svc_api_sys_usec"]),
  });
}

describe("security question (interface §4.10)", () => {
  it("when none is set, reading answers 404 and a check says no question is set", async () => {
    const account = await seedAccount();
    const response = await read(account.sub);
    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({
      type: "process_error",
      error: "no_security_question",
      desc: "no security question is set",
    });
    expect((await check(account.sub, { question: "q", answer: "a" })).json).toEqual(
      wrong("no security question is set"),
    );
  });

  it("when set, the question reads back, the answer is stored hashed, and checks fold case and spaces", async () => {
    const account = await seedAccount();
    expect((await set(account.sub, { question: " First pet? ", answer: "Mister  Rex" })).statusCode).toBe(204);
    expect((await read(account.sub)).json).toEqual({ question: "First pet?" });
    const { Item } = await documentClient().send(
      new GetCommand({ TableName: config().tableName, Key: keys.securityQuestion(account.sub) }),
    );
    expect(JSON.stringify(Item)).not.toMatch(/rex/i);
    expect((await check(account.sub, { question: "first pet?", answer: "  mister rex " })).statusCode).toBe(204);
    expect((await check(account.sub, { question: "Other?", answer: "mister rex" })).json).toEqual(
      wrong("the question does not match"),
    );
    expect((await check(account.sub, { question: "First pet?", answer: "Tom" })).json).toEqual(
      wrong("the answer does not match"),
    );
  });

  it("when replaced and then deleted, the new answer counts and then nothing is set", async () => {
    const account = await seedAccount();
    await set(account.sub, { question: "Q1", answer: "one" });
    await set(account.sub, { question: "Q2", answer: "two" });
    expect((await check(account.sub, { question: "Q2", answer: "two" })).statusCode).toBe(204);
    const removed = await request("security", "events/security/secqsn-delete.json", {
      params: { subjectId: account.sub },
      authorization: await systemBearer(["svc_api_sys_usec_chg"]),
    });
    expect(removed.statusCode).toBe(204);
    expect((await read(account.sub)).statusCode).toBe(404);
  });

  it("when wrong answers exceed the hourly limit, even the right answer is refused with 429", async () => {
    const account = await seedAccount();
    await set(account.sub, { question: "Q", answer: "right" });
    // Right answers do not use up the limit.
    expect((await check(account.sub, { question: "Q", answer: "right" })).statusCode).toBe(204);
    const guesses = await Promise.all(
      Array.from({ length: ANSWER_CHECKS_PER_HOUR + 2 }, (_, i) =>
        check(account.sub, { question: "Q", answer: `g${i}` }),
      ),
    );
    expect(guesses.filter((g) => g.statusCode === 400)).toHaveLength(ANSWER_CHECKS_PER_HOUR);
    const blocked = await check(account.sub, { question: "Q", answer: "right" });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json).toEqual({
      type: "security_error",
      error: "too_many_attempts",
      desc: `at most ${ANSWER_CHECKS_PER_HOUR} wrong answers per hour; try again later`,
    });
  });

  it.each([
    [{ question: "Q" }, "answer"],
    [{ question: "", answer: "a" }, "question"],
    [{ question: "Q", answer: "a".repeat(257) }, "answer"],
    [{ question: "Q", answer: 5 }, "answer"],
  ])("when the body is %j, set answers 400 naming %s and stores nothing", async (body, pos) => {
    const account = await seedAccount();
    const response = await set(account.sub, body);
    expect(response.statusCode).toBe(400);
    expect((response.json.errors as Array<{ pos: string }>).map((e) => e.pos)).toContain(pos);
    expect((await read(account.sub)).statusCode).toBe(404);
  });

  it("when the answer is only spaces, it answers wrong_value", async () => {
    const account = await seedAccount();
    const response = await set(account.sub, { question: "Q", answer: "   " });
    expect(response.json).toEqual({
      type: "input_error",
      error: "wrong_value",
      desc: "the answer is empty",
      pos: "answer",
    });
  });

  it("when the account does not exist, set answers unknown_user", async () => {
    expect((await set("nobody-here", { question: "Q", answer: "a" })).json.error).toBe("unknown_user");
  });

  it("when a user checks without X-Forwarded-For, it is refused; with the headers it works", async () => {
    const account = await seedAccount();
    await set(account.sub, { question: "Q", answer: "a" });
    const token = await userBearer(account.sub, ["svc_api_usec"]);
    const bare = await request("security", "events/security/secqsn-check.json", {
      params: { subjectId: account.sub },
      body: { question: "Q", answer: "a" },
      authorization: token,
      headers: { "x-forwarded-for": null },
    });
    expect(bare.statusCode).toBe(400);
    const ok = await request("security", "events/security/secqsn-check.json", {
      params: { subjectId: account.sub },
      body: { question: "Q", answer: "a" },
      authorization: token,
    });
    expect(ok.statusCode).toBe(204);
  });
});
