import { writeFileSync } from "node:fs";
import { dictionary } from "@zxcvbn-ts/language-common";

/**
 * Regenerates lib/domain/passwords/common-passwords.txt: the 10,000 most common passwords
 * of zxcvbn-ts's frequency-ranked list (MIT), most common first, one per line. Run with
 * `npx tsx scripts/common-passwords.ts`.
 */
const TOP = 10_000;
const ranked = (dictionary as Record<string, string[]>)["passwords-common"].slice(0, TOP);
// The policy matches whole lines, so an entry must be one line without surrounding blanks.
if (ranked.some((p) => p === "" || /[\r\n]/.test(p) || p.trim() !== p)) {
  throw new Error("a password would not read back as one line of the list");
}
writeFileSync("lib/domain/passwords/common-passwords.txt", `${ranked.join("\n")}\n`);
console.log(`wrote ${ranked.length} passwords`);
