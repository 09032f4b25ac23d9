import type { HookTransport } from "./transport";

/** A loopback HTTP endpoint (lib/config/validation.ts refuses any other host): POST JSON, a 2xx JSON answer. */
export function httpTransport(url: string): HookTransport {
  const request = async (input: object, signal: AbortSignal) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(input),
      signal,
      redirect: "error",
    });
    if (!response.ok) throw new Error(`the hook answered HTTP ${response.status}`);
    const text = await response.text();
    return text === "" ? undefined : JSON.parse(text);
  };
  return {
    request,
    dispatch: async (input, signal) => {
      await request(input, signal);
    },
    retriesItself: false,
  };
}
