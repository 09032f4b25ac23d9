import type { HookTransport } from "./transport";

/**
 * A Lambda function: RequestResponse for synchronous hooks, Event for asynchronous ones
 * (Lambda then retries a failed run twice by itself).
 */
export function lambdaTransport(region: string, functionName: string): HookTransport {
  const invoke = async (type: "RequestResponse" | "Event", input: object, signal: AbortSignal) =>
    (await import("./lambda-sdk")).invoke(region, functionName, type, input, signal);
  return {
    async request(input, signal) {
      const answer = await invoke("RequestResponse", input, signal);
      // The function threw: Lambda answers 200 with the error in the payload.
      if (answer.FunctionError) throw new Error(`the hook function failed (${answer.FunctionError})`);
      const text = answer.Payload ? Buffer.from(answer.Payload).toString("utf8") : "";
      return text === "" ? undefined : JSON.parse(text);
    },
    async dispatch(input, signal) {
      const answer = await invoke("Event", input, signal);
      if (answer.StatusCode !== 202) throw new Error(`the hook function was not queued (HTTP ${answer.StatusCode})`);
    },
    retriesItself: true,
  };
}
