import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import bcrypt from "bcryptjs";

/**
 * userMigration hook (docs/hooks.md): moves users of an old system, kept as a CSV of bcrypt
 * hashes, at their first sign-in or forgotten password. Columns:
 *   email,bcrypt_hash,given_name,family_name
 * The file is MIGRATION_CSV, default legacy-users.csv beside this module. This target receives
 * passwords: run it only where you trust it, and never log its input.
 */
const CSV = process.env.MIGRATION_CSV ?? fileURLToPath(new URL("legacy-users.csv", import.meta.url));

async function findUser(email) {
  const lines = (await readFile(CSV, "utf8")).split(/\r?\n/).slice(1);
  for (const line of lines) {
    const [address, hash, givenName, familyName] = line.split(",");
    if (address && address.toLowerCase() === email.toLowerCase()) return { address, hash, givenName, familyName };
  }
  return undefined;
}

export async function handler(input) {
  if (input.version !== "1" || input.hook !== "userMigration") throw new Error("unexpected hook input");
  const user = await findUser(input.username.trim());
  if (!user) return { action: "unknown" };
  // At a sign-in the old system checks the password; a forgotten password sends none.
  if (input.trigger === "signIn" && !(await bcrypt.compare(input.password ?? "", user.hash))) {
    return { action: "unknown" };
  }
  return {
    action: "migrate",
    user: {
      email: { value: user.address, verified: true },
      ...(user.givenName && { given_name: user.givenName }),
      ...(user.familyName && { family_name: user.familyName }),
    },
  };
}
