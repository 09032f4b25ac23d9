import type { IncomingMessage, ServerResponse } from "node:http";
import { BatchGetCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "../../lib/config";
import { DEFAULT_SCRYPT, hashPassword } from "../../lib/domain/credentials/password-hash";
import { createDocumentClient } from "../../lib/store/client";
import { keys } from "../../lib/store/keys";

/**
 * The references the service is measured against, each an HTTP listener doing only the
 * unavoidable part of a request, so a ratio to it shows what the service adds.
 */

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

function answer(res: ServerResponse, status: number): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ ok: status === 200 }));
}

/** One consistent GetItem of a profile per request, with the service's client settings. */
export async function getItemListener(sub = "bench-user"): Promise<Listener> {
  const client = createDocumentClient({ endpoint: config().dynamodbEndpoint, region: config().region });
  const input = { TableName: config().tableName, Key: keys.userProfile(sub), ConsistentRead: true };
  return (_req, res) => {
    client.send(new GetCommand(input)).then(
      (out) => answer(res, out.Item ? 200 : 404),
      () => answer(res, 503),
    );
  };
}

/**
 * The storage a user-mode read cannot avoid, nothing else: the session and the profile in
 * one consistent BatchGetItem, then the security event's PutItem, as users.get in user mode
 * sends them (docs/performance.md, round trips).
 */
export function sessionCheckListener(sub: string, sid: string): Listener {
  const client = createDocumentClient({ endpoint: config().dynamodbEndpoint, region: config().region });
  const { tableName } = config();
  const read = {
    RequestItems: { [tableName]: { Keys: [keys.session(sub, sid), keys.userProfile(sub)], ConsistentRead: true } },
  };
  let sequence = 0;
  return (_req, res) => {
    client
      .send(new BatchGetCommand(read))
      .then((out) => {
        const ts = Date.now();
        sequence += 1;
        return client
          .send(
            new PutCommand({
              TableName: tableName,
              Item: {
                ...keys.securityEvent(sub, ts, `floor${sequence}`),
                sbj: sub,
                ts,
                type: "bench",
                expiresAt: Math.floor(ts / 1000) + 86_400,
              },
            }),
          )
          .then(() => answer(res, out.Responses?.[tableName]?.length === 2 ? 200 : 404));
      })
      .catch(() => answer(res, 503));
  };
}

/** One scrypt hash with the production parameters per request: the password grant's own cost. */
export function scryptListener(): Listener {
  return (_req, res) => {
    hashPassword("Bench-Password-2026-correct-horse", DEFAULT_SCRYPT).then(
      () => answer(res, 200),
      () => answer(res, 500),
    );
  };
}
