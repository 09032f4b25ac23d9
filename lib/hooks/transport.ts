/** How a hook's input reaches its target and the answer comes back (one adapter per kind of target). */
export interface HookTransport {
  /** Sends the input and answers the target's reply; gives up when `signal` aborts. */
  request(input: object, signal: AbortSignal): Promise<unknown>;
  /** Hands an asynchronous hook's input over; resolves once it is accepted. */
  dispatch(input: object, signal: AbortSignal): Promise<void>;
  /** True when the platform retries a dispatch itself (Lambda's asynchronous invocation). */
  retriesItself: boolean;
}

/** Rejects when `signal` aborts, whether or not the work listens to it. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
