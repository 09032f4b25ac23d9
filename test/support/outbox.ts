import { existsSync, readFileSync } from "node:fs";
import { config } from "../../lib/config";

export interface OutboxLine {
  channel: "sms" | "email";
  to: string;
  subject?: string;
  text: string;
  lang: "ru" | "en";
  at: number;
}

/** Messages this test file's flows sent, oldest first (docs/configuration.md outbox format). */
export function outbox(to?: string): OutboxLine[] {
  const file = config().outboxFile;
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OutboxLine);
  return to === undefined ? lines : lines.filter((l) => l.to === to);
}

/** The code in the newest message to `to`: the run of codes.length digits in its text. */
export function lastCode(to: string): string {
  const length = config().settings.codes.length;
  const message = outbox(to).at(-1);
  const code = message?.text.match(new RegExp(`\\b\\d{${length}}\\b`))?.[0];
  if (!code) throw new Error(`no code was sent to ${to}`);
  return code;
}
