/**
 * Notes in `order` when a store method is called ("<name> sent") and when it answers
 * ("<name> answered"), by wrapping the real method; returns the function that puts it
 * back. `name` may depend on the call's arguments; `delay` holds the answer back.
 */
export function watchCalls<T extends object, K extends keyof T>(
  store: T,
  method: K,
  name: string | ((...args: never[]) => string),
  order: string[],
  delay = 0,
): () => void {
  const original = store[method] as (...args: unknown[]) => Promise<unknown>;
  (store as Record<K, unknown>)[method] = async (...args: unknown[]) => {
    const label = typeof name === "string" ? name : name(...(args as never[]));
    order.push(`${label} sent`);
    const answer = await original.apply(store, args);
    if (delay) await new Promise((done) => setTimeout(done, delay));
    order.push(`${label} answered`);
    return answer;
  };
  return () => {
    (store as Record<K, unknown>)[method] = original;
  };
}
