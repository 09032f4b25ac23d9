import { recordToLine, type TotpSealing } from "./export-line";
import type { AccountTransferRepository } from "./transfer-ports";

/**
 * `svc-admin users export` (docs/administration.md): every account as one JSON line, page by
 * page as the table is read, so the table never sits in memory. The lines hold password
 * hashes (and with `factors` TOTP secrets in the clear): the caller decides where they go.
 */

export interface ExportOptions {
  accounts: Pick<AccountTransferRepository, "pages">;
  /** Parallel Scan segments (more: faster on a large table, more read capacity at once). */
  segments?: number;
  /** TOTP generators and passkeys too; TOTP secrets are opened with `sealing`. */
  factors?: boolean;
  sealing?: TotpSealing;
  /** Takes a page of lines; resolves when the output can take more (backpressure). */
  write: (text: string) => Promise<void> | void;
  onProgress?: (exported: number) => void;
}

export async function exportAccounts(options: ExportOptions): Promise<{ exported: number }> {
  const factors = options.factors ?? false;
  let exported = 0;
  for await (const page of options.accounts.pages({ segments: options.segments ?? 4, factors })) {
    const text = page.map((record) => `${JSON.stringify(recordToLine(record, factors, options.sealing))}\n`).join("");
    await options.write(text);
    exported += page.length;
    options.onProgress?.(exported);
  }
  return { exported };
}
