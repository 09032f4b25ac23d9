import { pathToFileURL } from "node:url";
import type { HookTransport } from "./transport";

type Handler = (input: object) => unknown;

/** A local module exporting `handler(input)` (npm start): loaded once, called in process. */
export function moduleTransport(path: string): HookTransport {
  let loaded: Promise<Handler> | undefined;
  const handler = () => {
    loaded ??= import(pathToFileURL(path).href).then(
      (module: { handler?: unknown; default?: { handler?: unknown } }) => {
        const found = module.handler ?? module.default?.handler;
        if (typeof found !== "function") throw new Error(`${path} exports no handler function`);
        return found as Handler;
      },
    );
    // A failed load is tried again on the next call (the file may be fixed meanwhile).
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };
  // The runner bounds the wait; a handler cannot be stopped, only no longer waited for.
  const request = async (input: object) => (await handler())(structuredClone(input));
  return {
    request,
    dispatch: async (input) => {
      await request(input);
    },
    retriesItself: false,
  };
}
