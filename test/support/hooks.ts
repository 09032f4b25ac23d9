import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { beforeAll } from "vitest";
import type { Account } from "../../lib/domain/accounts/account";
import type { HookName } from "../../lib/domain/hooks/contracts";
import { createClient, invoke, sampleEvent, seedAccount, uniqueId } from "./fixtures";
import { useSettings } from "./oauth-provider";

/** A real module target (test/support/scripted-hook.mjs) answering with the test's functions. */
export const SCRIPTED_HOOK = resolve("test/support/scripted-hook.mjs");

type Script = (input: Record<string, unknown>) => unknown;
const global = globalThis as { hookScript?: Record<string, Script>; hookCalls?: Array<Record<string, unknown>> };

/** How the scripted module answers `hook` from now on. */
export function scriptHook(hook: HookName, script: Script): void {
  global.hookScript = { ...global.hookScript, [hook]: script };
}

/** The inputs the scripted module received for `hook`, oldest first. */
export function hookCalls(hook: HookName): Array<Record<string, unknown>> {
  return (global.hookCalls ?? []).filter((input) => input.hook === hook);
}

export function forgetHookCalls(): void {
  global.hookCalls = [];
}

/** Configures `hooks` (and any other settings) with the scripted module as every hook's target. */
export function useScriptedHooks(
  timeouts: Partial<Record<HookName, number>>,
  other: Record<string, unknown> = {},
): void {
  const hooks = Object.fromEntries(
    Object.entries(timeouts).map(([hook, timeoutMs]) => [hook, { target: SCRIPTED_HOOK, timeoutMs }]),
  );
  useSettings({ ...other, hooks });
}

/** Resolves after `ms` milliseconds (a slow hook). */
export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Waits until `check` holds (an asynchronous hook ran), or fails after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("the condition never held");
    await sleep(20);
  }
}

/** A real HTTP hook target on loopback: `answer` gives the status and body of each POST. */
export async function startHookServer(
  answer: (input: Record<string, unknown>) => Promise<{ status: number; body: unknown }>,
) {
  const received: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", async () => {
      const input = JSON.parse(text) as Record<string, unknown>;
      received.push(input);
      const { status, body } = await answer(input);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    stop: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** An application that may use the password grant, and an account with `password`, made once per file. */
export function useSignInAccount(password: string) {
  const seeded = {} as { client: Awaited<ReturnType<typeof createClient>>; account: Account };
  beforeAll(async () => {
    seeded.client = await createClient();
    seeded.account = await seedAccount({}, password);
  });
  return seeded;
}

/** A REST registration with this e-mail (confirmed or not) and a password; the sub is new. */
export async function registerWithEmail(email: { value: string; verified: boolean }) {
  const sub = uniqueId("hook-reg-");
  const event = await sampleEvent("events/registration/register-confirmed.json", { sub, email: email.value });
  event.body = JSON.stringify({
    user: { attrs: { sub, family_name: "Orlov", email }, credentials: { password: "a long enough passphrase" } },
  });
  return { response: await invoke("registration", event), sub };
}
