/**
 * What the Lambda bundles get for `node:stream/web` (an esbuild alias, infra/bundling.ts).
 * Only middy imports it, to tell a streamed response body from others with `instanceof`;
 * the real module loads Node's web streams at every cold start (about 3 ms of the import)
 * for responses that API Gateway never streams. This stand-in answers that `instanceof`
 * with the real class, looked up only when a check is made.
 */
export const ReadableStream = {
  [Symbol.hasInstance]: (value: unknown): boolean => value instanceof globalThis.ReadableStream,
};
