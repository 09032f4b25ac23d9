import { signInHookFailed } from "../errors";
import { HookFailedError } from "./ports";

/** A hook's answer; a failed hook stops a sign-in or token issue in the grant's shape (503 temporarily_unavailable). */
export async function hookAnswer<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof HookFailedError) throw signInHookFailed();
    throw error;
  }
}
