import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { printable } from "../notify/outbox-sender";
import type { EventPublisher } from "./publish";

/**
 * The local stack's event bus (docs/events.md): one JSON line per event appended to the
 * events file, and a short line (type, subject) on the console, like the outbox.
 */
export function createFilePublisher(
  file: string,
  echo: (line: string) => void = (l) => console.log(l),
): EventPublisher {
  let ready: Promise<unknown> | undefined;
  return {
    async publish(events) {
      if (events.length === 0) return [];
      ready ??= mkdir(dirname(file), { recursive: true });
      await ready;
      await appendFile(file, events.map((event) => `${JSON.stringify(event)}\n`).join(""), "utf8");
      for (const event of events) echo(printable(`event ${event.type} ${event.subject}`));
      return [];
    },
  };
}
