/** The hashing of strangers is at its bound: come back shortly. */
export class HashGateBusy extends Error {
  constructor() {
    super("too many sign-ins are being checked; try again shortly");
  }
}

/**
 * At most `concurrent` password hashes at a time in this process for callers nobody
 * vouches for (HTTP Basic user logins); more are refused at once, not queued, so a
 * flood of strangers keeps the rest of the hashing threads for everyone else.
 */
export function hashGate(concurrent: number) {
  let running = 0;
  return async <T>(hash: () => Promise<T>): Promise<T> => {
    if (running >= concurrent) throw new HashGateBusy();
    running += 1;
    try {
      return await hash();
    } finally {
      running -= 1;
    }
  };
}
