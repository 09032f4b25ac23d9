import { hkdfSync } from "node:crypto";
import { config } from "../config";
import type { DataKeySource } from "../config/settings";
import { ApiError } from "../domain/errors";
import { log } from "../log";

/**
 * The service's data key, which is never in the table: inline (SVC_DATA_KEY, local) or
 * a Secrets Manager secret the stack creates (read once per container). Each use gets
 * its own subkey (HKDF-SHA256), so the encryption key of stored tokens is not also the
 * key that signs bind states.
 */

export type DataKeyPurpose =
  | "federated-tokens"
  | "federation-state"
  | "totp-secrets"
  | "hosted-interaction"
  | "dpop-nonces"
  | "hosted-sign-in-step"
  | "passkey-challenges"
  | "org-sso-secrets";

const unavailable = () =>
  new ApiError(503, "process_error", "service_unavailable", "the data key is not available, try again later", {
    v2Code: "service_unavailable",
  });

export function createDataKeys(source: DataKeySource | undefined, region: string) {
  let material: Promise<Buffer> | undefined;
  const subkeys = new Map<DataKeyPurpose, Buffer>();

  async function loadMaterial(): Promise<Buffer> {
    if (!source) {
      log.error("data key missing: set SVC_DATA_KEY (local) or SVC_DATA_KEY_SECRET_ID (AWS)");
      throw unavailable();
    }
    if (source.kind === "inline") return source.material;
    // The Secrets Manager client loads here, once per container, not at every function's import.
    material ??= import("./secret-material")
      .then(({ secretMaterial }) => secretMaterial(source.secretId, region))
      .catch((error: unknown) => {
        // Not cached: the next request tries again.
        material = undefined;
        log.error("data key secret unreadable", { error });
        throw unavailable();
      });
    return material;
  }

  return {
    async key(purpose: DataKeyPurpose): Promise<Buffer> {
      let found = subkeys.get(purpose);
      if (!found) {
        found = Buffer.from(hkdfSync("sha256", await loadMaterial(), "", `svc-identity/${purpose}/v1`, 32));
        subkeys.set(purpose, found);
      }
      return found;
    },
  };
}

export type DataKeys = ReturnType<typeof createDataKeys>;

let shared: DataKeys | undefined;

/**
 * The container's data keys. Kept out of `services()` on purpose: only functions that
 * import this module bundle the Secrets Manager client.
 */
export function dataKeys(): DataKeys {
  shared ??= createDataKeys(config().dataKey, config().region);
  return shared;
}
