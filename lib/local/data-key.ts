import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { config, setEnvDefaults } from "../config";

export const DATA_KEY_FILE = ".local/data-key";

/**
 * The data key of local tools (lib/crypto/data-key.ts), like the bootstrap client:
 * SVC_DATA_KEY when set, else the one an earlier start saved beside the data (so stored
 * external tokens stay readable across restarts), else a new one. Never printed.
 */
export function ensureLocalDataKey(savedFile?: string): "environment" | "saved" | "generated" {
  if (config().dataKey) return "environment";
  let key: string;
  let source: "saved" | "generated";
  if (savedFile && existsSync(savedFile)) {
    key = readFileSync(savedFile, "utf8").trim();
    source = "saved";
  } else {
    key = randomBytes(32).toString("base64");
    source = "generated";
    if (savedFile) {
      mkdirSync(dirname(savedFile), { recursive: true });
      writeFileSync(savedFile, `${key}\n`, { mode: 0o600 });
    }
  }
  setEnvDefaults({ SVC_DATA_KEY: key });
  return source;
}
