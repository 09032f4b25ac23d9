import { expect } from "vitest";
import { ENTITY } from "../../lib/store/keys";
import { tableSnapshot } from "./table-snapshot";

type Item = Record<string, unknown>;

const CLAIMED = { email: ENTITY.uniqueEmail, phone_number: ENTITY.uniquePhone } as const;

/**
 * The uniqueness claims and the accounts agree, over the whole table: every e-mail and
 * phone claim names an existing account holding that value, and every account's e-mail
 * and phone has its claim naming it. Nothing half-written by a race or a fault.
 */
export function claimProblems(items: Item[]): string[] {
  const profiles = new Map(items.filter((i) => i.entity === ENTITY.user).map((i) => [String(i.sub), i]));
  const claims = new Map(items.filter((i) => String(i.PK).startsWith("UNIQUE#")).map((i) => [String(i.PK), i]));
  const problems: string[] = [];
  for (const [field, entity] of Object.entries(CLAIMED)) {
    const prefix = `UNIQUE#${field === "email" ? "email" : "phone"}#`;
    for (const claim of items.filter((i) => i.entity === entity)) {
      const value = String(claim.PK).slice(prefix.length);
      const owner = profiles.get(String(claim.owner));
      if (!owner) problems.push(`${claim.PK} names ${claim.owner}, which does not exist`);
      else if ((owner[field] as { value?: string } | undefined)?.value !== value)
        problems.push(`${claim.PK} names ${claim.owner}, whose ${field} is not ${value}`);
    }
    for (const profile of profiles.values()) {
      const value = (profile[field] as { value?: string } | undefined)?.value;
      if (value === undefined) continue;
      const claim = claims.get(`${prefix}${value}`);
      if (claim?.owner !== profile.sub)
        problems.push(`${profile.sub}'s ${field} ${value} is claimed by ${claim?.owner}`);
    }
  }
  for (const claim of items.filter((i) => i.entity === ENTITY.uniqueFederatedAccount)) {
    if (!profiles.has(String(claim.owner))) problems.push(`${claim.PK} names ${claim.owner}, which does not exist`);
  }
  // A passkey's credential id is claimed by the account that holds it, and by no other.
  const passkeys = new Set(items.filter((i) => i.entity === ENTITY.passkey).map((i) => `${i.PK} ${i.id}`));
  const passkeyClaims = items.filter((i) => i.entity === ENTITY.uniquePasskey);
  for (const claim of passkeyClaims) {
    const id = String(claim.PK).slice("UNIQUE#passkey#".length);
    if (!passkeys.has(`USER#${claim.owner} ${id}`))
      problems.push(`${claim.PK} names ${claim.owner}, which has no such passkey`);
  }
  const claimed = new Set(passkeyClaims.map((c) => `USER#${c.owner} ${String(c.PK).slice("UNIQUE#passkey#".length)}`));
  for (const passkey of passkeys) if (!claimed.has(passkey)) problems.push(`passkey ${passkey} has no claim`);
  return problems;
}

/**
 * Rights are written in both directions in one transaction (lib/store/rights.ts): every
 * grant in the subject's partition has its holder item in the object's, and back.
 */
export function rightsProblems(items: Item[]): string[] {
  const id = (i: Item) => `${i.subjectKey} ${i.right} on ${i.objectKey}`;
  const grants = new Set(items.filter((i) => i.entity === ENTITY.rightGrant).map(id));
  const holders = new Set(items.filter((i) => i.entity === ENTITY.rightHolder).map(id));
  return [
    ...[...grants].filter((g) => !holders.has(g)).map((g) => `grant without holder: ${g}`),
    ...[...holders].filter((h) => !grants.has(h)).map((h) => `holder without grant: ${h}`),
  ];
}

export async function expectClaimsConsistent(): Promise<void> {
  const items = [...(await tableSnapshot()).values()].map((v) => JSON.parse(v) as Item);
  expect(claimProblems(items)).toEqual([]);
}
