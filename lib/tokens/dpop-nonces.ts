import { signValue, verifySignedValue } from "../crypto/signed-value";
import type { DpopNonces } from "../domain/oauth/dpop";

/** A nonce lives one period and the next: a client that just got one is not refused at the turn. */
export const NONCE_PERIOD_SECONDS = 300;

/** Stateless server nonces: the period's number, signed; nothing is stored or read. */
export function statelessNonces(key: () => Promise<Buffer>): DpopNonces {
  const period = (now: number) => Math.floor(now / NONCE_PERIOD_SECONDS);
  return {
    current: async (now) => signValue(await key(), String(period(now))),
    async fresh(nonce, now) {
      const signed = verifySignedValue(await key(), nonce);
      const at = period(now);
      return signed === String(at) || signed === String(at - 1);
    },
  };
}
