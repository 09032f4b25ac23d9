import type { PasskeyRepository } from "./ports";

/**
 * The upgrade step of `svc-admin passkeys claim` (docs/administration.md): passkeys stored
 * before credential id claims existed get theirs, so their ids cannot be registered under
 * another account. A claim is never overwritten, so a second run writes nothing.
 */

/** A credential id held by two accounts: `holder` has a passkey with it, `owner` the claim. */
export interface ClaimConflict {
  id: string;
  holder: string;
  owner: string;
}

export interface ClaimBackfill {
  written: number;
  /** Claims already naming the passkey's own account. */
  existing: number;
  conflicts: ClaimConflict[];
}

/** Claims put at once: a page's puts overlap, without flooding the table's write capacity. */
const CONCURRENCY = 8;

export async function backfillPasskeyClaims(
  passkeys: Pick<PasskeyRepository, "holdingPages" | "claim">,
): Promise<ClaimBackfill> {
  const summary: ClaimBackfill = { written: 0, existing: 0, conflicts: [] };
  for await (const page of passkeys.holdingPages()) {
    for (let from = 0; from < page.length; from += CONCURRENCY) {
      const batch = page.slice(from, from + CONCURRENCY);
      const outcomes = await Promise.all(batch.map(({ sub, id }) => passkeys.claim(sub, id)));
      outcomes.forEach((outcome, index) => {
        const { sub, id } = batch[index];
        if (outcome.result === "written") summary.written += 1;
        else if (outcome.result === "held" && outcome.owner === sub) summary.existing += 1;
        else if (outcome.result === "held") summary.conflicts.push({ id, holder: sub, owner: outcome.owner });
        // "gone": deleted since the Scan read it; there is nothing to claim.
      });
    }
  }
  return summary;
}
