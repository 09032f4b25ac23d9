import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A Pwned Passwords range API on loopback, speaking the real protocol: `GET /range/<5 hex>`
 * answers `SUFFIX:COUNT` lines, padded with count-0 entries when `Add-Padding: true` is
 * sent. Our adapter talks to it over HTTP exactly as to the real one; `answer` only chooses
 * how the server misbehaves.
 */

export const sha1Hex = (password: string) => createHash("sha1").update(password, "utf8").digest("hex").toUpperCase();

/** What one request carried, as the server saw it. */
export interface RangeRequest {
  url: string;
  headers: IncomingHttpHeaders;
}

type Behaviour = "protocol" | "status-500" | "silent" | "garbage";

const PADDING_LINES = 40;

export async function startRangeServer(
  /** Breached passwords and how often each was seen. */
  breached: Record<string, number>,
  /** Passwords whose suffix appears only as padding (count 0): not breached. */
  paddedOnly: string[] = [],
) {
  const requests: RangeRequest[] = [];
  let behaviour: Behaviour = "protocol";
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    if (behaviour === "silent") return;
    if (behaviour === "status-500") return void res.writeHead(500).end("internal error");
    if (behaviour === "garbage") return void res.writeHead(200).end("<html>down for maintenance</html>");
    const prefix = /^\/range\/([0-9A-F]{5})$/.exec(req.url ?? "")?.[1];
    if (!prefix) return void res.writeHead(404).end();
    const ofPrefix = (password: string) => sha1Hex(password).startsWith(prefix);
    const lines = [
      ...Object.entries(breached)
        .filter(([password]) => ofPrefix(password))
        .map(([password, count]) => `${sha1Hex(password).slice(5)}:${count}`),
      ...paddedOnly.filter(ofPrefix).map((password) => `${sha1Hex(password).slice(5)}:0`),
    ];
    if (req.headers["add-padding"] === "true") {
      for (let i = 0; i < PADDING_LINES; i++)
        lines.push(`${randomBytes(18).toString("hex").slice(0, 35).toUpperCase()}:0`);
    }
    res.writeHead(200, { "content-type": "text/plain" }).end(lines.join("\r\n"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** Where the range API is: SVC_CONFIG's passwordPolicy.breachedPasswords.rangeUrl. */
    rangeUrl: `${url}/range`,
    requests,
    answer(next: Behaviour) {
      behaviour = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
