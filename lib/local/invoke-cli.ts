import { readFileSync } from "node:fs";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { config, setEnvDefaults } from "../config";
import { LOCAL_TOOL_ENV } from "../config/environment";
import { FUNCTION_NAMES } from "../http/route";
import { DATA_KEY_FILE, ensureLocalDataKey } from "./data-key";
import { prepareEvent } from "./events";
import { isFunctionName, loadFunction } from "./functions";
import { lambdaContext } from "./gateway";
import { ensureSampleClients } from "./sample-clients";
import { attachLocalStorage, bootstrapCredentialValues } from "./stack";

/** `npm run invoke -- <function> <event.json> [name=value ...]`: one handler, one event, the local table. */
async function main(): Promise<number> {
  setEnvDefaults(LOCAL_TOOL_ENV);
  // The key of `npm start`, so tokens it stored open here too.
  ensureLocalDataKey(config().inMemory ? undefined : DATA_KEY_FILE);
  const [fn, eventPath, ...assignments] = process.argv.slice(2);
  if (!fn || !eventPath || !isFunctionName(fn)) {
    console.error(`usage: npm run invoke -- <${FUNCTION_NAMES.join("|")}> <event.json> [name=value ...]`);
    return 2;
  }
  const values: Record<string, string> = {
    ...bootstrapCredentialValues(),
    ...Object.fromEntries(
      assignments.map((a) => {
        const at = a.indexOf("=");
        return [a.slice(0, at), a.slice(at + 1)];
      }),
    ),
  };
  const storage = await attachLocalStorage();
  try {
    // The applications the events name, for an invoke without a running `npm start`.
    await ensureSampleClients();
    const event = await prepareEvent(JSON.parse(readFileSync(eventPath, "utf8")) as APIGatewayProxyEventV2, values);
    const handler = await loadFunction(fn);
    const result = (await handler(event, lambdaContext(fn, event.requestContext?.requestId ?? "invoke"))) as {
      statusCode?: number;
      headers: Record<string, string>;
      cookies?: string[];
      body: string;
    };
    // Scheduled jobs answer a plain object, not an HTTP response.
    if (result.statusCode === undefined) {
      console.log(JSON.stringify(result, null, 2));
      return 0;
    }
    let body: unknown = result.body;
    try {
      body = JSON.parse(result.body);
    } catch {
      // not JSON: print as is
    }
    // Payload 2.0 answers Set-Cookie apart from the headers (the hosted pages' session and CSRF cookies).
    const { statusCode, headers, cookies } = result;
    console.log(JSON.stringify({ statusCode, headers, ...(cookies?.length && { cookies }), body }, null, 2));
    return 0;
  } finally {
    await storage.release();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`invoke failed: ${(error as Error).message}`);
    process.exit(1);
  },
);
