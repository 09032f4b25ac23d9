import { hashPassword, type PasswordHash, type ScryptParams, verifyPassword } from "../credentials/password-hash";
import { problems } from "../errors";

/**
 * The security question (interface §4.10). Answers are hashed like passwords and compared
 * after trimming, collapsing spaces and case folding, so "  Paris " matches "paris".
 * Wrong checks are limited per account and hour (ANSWER_CHECKS_PER_HOUR).
 */
export const ANSWER_CHECKS_PER_HOUR = 5;
const HOUR_SECONDS = 3600;

export interface StoredQuestion {
  question: string;
  answer: PasswordHash;
}

export interface SecurityQuestionRepository {
  get(sub: string): Promise<StoredQuestion | undefined>;
  put(sub: string, stored: StoredQuestion, now: number): Promise<boolean>;
  remove(sub: string): Promise<void>;
  /** Takes one of the hour's attempts: its id, or undefined when none is left. */
  takeAttempt(sub: string, hour: number, limit: number, expiresAt: number): Promise<string | undefined>;
  /** Gives a right answer's attempt back, so only wrong ones count. */
  returnAttempt(sub: string, hour: number, attempt: string): Promise<void>;
}

export function normalizeAnswer(text: string): string {
  return text.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();
}

export async function readQuestion(store: SecurityQuestionRepository, sub: string): Promise<{ question: string }> {
  const stored = await store.get(sub);
  if (!stored) throw problems.noSecurityQuestion();
  return { question: stored.question };
}

export async function setQuestion(
  store: SecurityQuestionRepository,
  sub: string,
  input: { question: string; answer: string },
  now: number,
  scrypt?: ScryptParams,
): Promise<void> {
  const question = input.question.trim();
  const answer = normalizeAnswer(input.answer);
  if (!question) throw problems.wrongValue("question", "the question is empty");
  if (!answer) throw problems.wrongValue("answer", "the answer is empty");
  if (!(await store.put(sub, { question, answer: await hashPassword(answer, scrypt) }, now))) {
    throw problems.unknownUser(sub);
  }
}

export async function checkAnswer(
  store: SecurityQuestionRepository,
  sub: string,
  input: { question: string; answer: string },
  now: number,
): Promise<void> {
  const stored = await store.get(sub);
  if (!stored) throw problems.wrongSecurityAnswer("no security question is set");
  const hour = Math.floor(now / HOUR_SECONDS);
  const attempt = await store.takeAttempt(sub, hour, ANSWER_CHECKS_PER_HOUR, (hour + 1) * HOUR_SECONDS);
  if (!attempt) {
    throw problems.tooManyAttempts(`at most ${ANSWER_CHECKS_PER_HOUR} wrong answers per hour; try again later`);
  }
  if (normalizeAnswer(input.question) !== normalizeAnswer(stored.question)) {
    throw problems.wrongSecurityAnswer("the question does not match");
  }
  if (!(await verifyPassword(normalizeAnswer(input.answer), stored.answer))) {
    throw problems.wrongSecurityAnswer("the answer does not match");
  }
  await store.returnAttempt(sub, hour, attempt);
}
