import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { MessageSender, OutgoingMessage } from "./message";

/**
 * Control and format characters but the line feed as \uXXXX: an address or a text must
 * not drive the operator's terminal (ESC sequences, BEL, CR, bidirectional overrides).
 */
export function printable(text: string): string {
  return text.replace(/(?!\n)[\p{Cc}\p{Cf}]/gu, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * The local stack's courier (docs/configuration.md, contract): one JSON line per message appended to
 * the outbox file, and echoed to the console so a developer sees codes arrive.
 */
export function createOutboxSender(file: string, echo: (line: string) => void = (l) => console.log(l)): MessageSender {
  let ready: Promise<unknown> | undefined;
  return {
    async send(message: OutgoingMessage): Promise<void> {
      ready ??= mkdir(dirname(file), { recursive: true });
      await ready;
      const line = JSON.stringify({
        channel: message.channel,
        to: message.to,
        ...(message.channel === "email" && { subject: message.subject }),
        text: message.text,
        lang: message.lang,
        at: Math.floor(Date.now() / 1000),
      });
      await appendFile(file, `${line}\n`, "utf8");
      echo(printable(`outbox ${message.channel} to ${message.to}: ${message.text}`));
    },
  };
}
