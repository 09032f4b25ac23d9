/**
 * A hook target module for the tests: each call is recorded in globalThis.hookCalls, and
 * answered by the function the test put in globalThis.hookScript under the hook's name.
 */
export async function handler(input) {
  globalThis.hookCalls ??= [];
  globalThis.hookCalls.push(input);
  const script = globalThis.hookScript?.[input.hook];
  if (!script) throw new Error(`no script for ${input.hook}`);
  return script(input);
}
