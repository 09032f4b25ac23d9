import type { StoredPasswordHash } from "../credentials/password-hash";
import type { StoredPasskey } from "../passkeys/ports";
import type { StoredGenerator } from "../security/ports";
import { openGeneratorSecret, sealGeneratorSecret } from "../security/totp";
import type { Account } from "./account";
import type { AccountRecord } from "./transfer-ports";

/**
 * An account as one export line (lib/domain/accounts/export-schema.ts) and back. Keys come
 * in a fixed order and lists sorted, so the same account always prints the same bytes.
 */

/** Opens and seals TOTP secrets with the data key; each secret is bound to its item. */
export interface TotpSealing {
  open(sub: string, id: string, sealed: string): string;
  seal(sub: string, id: string, secret: string): string;
}

export interface ExportLine {
  sub: string;
  family_name?: string;
  given_name?: string;
  middle_name?: string;
  locked: boolean;
  email?: { value: string; verified: boolean };
  phone_number?: { value: string; verified: boolean };
  created_at: number;
  updated_at: number;
  last_login_at?: number;
  state?: Account["state"];
  required_factor?: number;
  need_password_change?: boolean;
  methods_locked?: string[];
  password_hash?: StoredPasswordHash;
  password_changed_at?: number;
  password_history?: StoredPasswordHash[];
  groups: Array<{ profile: string; id: string; added_at: number }>;
  rights: Array<{ object: string; right: string; tags: string[] }>;
  totps?: Array<{ id: string; name: string; digits: number; secret: string; last_step?: number }>;
  passkeys?: Array<{
    id: string;
    public_key: string;
    counter: number;
    transports: string[];
    backed_up: boolean;
    device_type: StoredPasskey["deviceType"];
    name: string;
    created_at: number;
    last_used?: number;
    aaguid?: string;
  }>;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Drops undefined members, so absent fields print nothing rather than a null. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The hash's own fields in a fixed order (items keep attributes in no order). */
function orderedHash(hash: StoredPasswordHash): StoredPasswordHash {
  switch (hash.alg) {
    case "scrypt":
      return {
        alg: hash.alg,
        N: hash.N,
        r: hash.r,
        p: hash.p,
        keyLength: hash.keyLength,
        salt: hash.salt,
        hash: hash.hash,
        ...(hash.unnormalized && { unnormalized: true }),
      };
    case "pbkdf2-sha256":
      return { alg: hash.alg, iterations: hash.iterations, salt: hash.salt, hash: hash.hash };
    default:
      return { alg: hash.alg, hash: hash.hash };
  }
}

/** `sealing` is needed only for a record with TOTP generators (an export --with-factors). */
export function recordToLine(record: AccountRecord, factors: boolean, sealing?: TotpSealing): ExportLine {
  const { account, credential } = record;
  const line: ExportLine = compact({
    sub: account.sub,
    family_name: account.family_name,
    given_name: account.given_name,
    middle_name: account.middle_name,
    locked: account.locked,
    email: account.email && { value: account.email.value, verified: account.email.verified },
    phone_number: account.phone_number && {
      value: account.phone_number.value,
      verified: account.phone_number.verified,
    },
    created_at: account.createdAt,
    updated_at: account.updatedAt,
    last_login_at: account.lastLoginAt,
    state: account.state && (compact({ ...account.state }) as Account["state"]),
    required_factor: account.requiredFactor,
    need_password_change: account.needPasswordChange,
    methods_locked: account.methodsLocked && [...account.methodsLocked].sort(byText),
    password_hash: credential && orderedHash(credential.hash),
    password_changed_at: credential?.changedAt,
    password_history:
      credential?.history && credential.history.length > 0 ? credential.history.map(orderedHash) : undefined,
    groups: record.groups
      .map((g) => ({ profile: g.profile, id: g.id, added_at: g.addedAt }))
      .sort((a, b) => byText(`${a.profile}|${a.id}`, `${b.profile}|${b.id}`)),
    rights: record.rights
      .map((r) => ({ object: r.object, right: r.right, tags: [...r.tags].sort(byText) }))
      .sort((a, b) => byText(`${a.object}|${a.right}`, `${b.object}|${b.right}`)),
  });
  if (!factors) return line;
  if (record.totps.length > 0 && !sealing) throw new Error("TOTP secrets need the data key");
  line.totps = record.totps
    .map((t) =>
      compact({
        id: t.id,
        name: t.name,
        digits: t.len,
        secret: (sealing as TotpSealing).open(account.sub, t.id, t.secret),
        last_step: t.lastStep,
      }),
    )
    .sort((a, b) => byText(a.id, b.id));
  line.passkeys = record.passkeys
    .map((p) =>
      compact({
        id: p.id,
        public_key: p.publicKey,
        counter: p.counter,
        transports: [...p.transports],
        backed_up: p.backedUp,
        device_type: p.deviceType,
        name: p.name,
        created_at: p.createdAt,
        last_used: p.lastUsed,
        aaguid: p.aaguid,
      }),
    )
    .sort((a, b) => byText(a.id, b.id));
  return line;
}

/**
 * The parts of a line beyond a new account's (import): everything `recordToLine` wrote,
 * back in stored form, TOTP secrets sealed again under this stack's data key.
 */
export function lineExtras(
  line: Pick<Partial<ExportLine>, "groups" | "rights" | "totps" | "passkeys">,
  sub: string,
  sealing: TotpSealing | undefined,
): Omit<AccountRecord, "account" | "credential"> {
  if ((line.totps?.length ?? 0) > 0 && !sealing) throw new Error("TOTP secrets need the data key");
  return {
    groups: (line.groups ?? []).map((g) => ({ profile: g.profile, id: g.id, addedAt: g.added_at })),
    rights: (line.rights ?? []).map((r) => ({ object: r.object, right: r.right, tags: [...r.tags] })),
    totps: (line.totps ?? []).map(
      (t): StoredGenerator =>
        compact({
          id: t.id,
          name: t.name,
          len: t.digits,
          secret: (sealing as TotpSealing).seal(sub, t.id, t.secret),
          lastStep: t.last_step,
        }),
    ),
    passkeys: (line.passkeys ?? []).map(
      (p): StoredPasskey =>
        compact({
          id: p.id,
          publicKey: p.public_key,
          counter: p.counter,
          transports: [...p.transports],
          backedUp: p.backed_up,
          deviceType: p.device_type,
          name: p.name,
          createdAt: p.created_at,
          lastUsed: p.last_used,
          aaguid: p.aaguid,
        }),
    ),
  };
}

/** Sealing with the data key's TOTP subkey, as enrolment seals (lib/domain/security/totp.ts). */
export function totpSealing(key: Buffer): TotpSealing {
  return {
    open: (sub, id, sealed) => openGeneratorSecret(key, sub, id, sealed),
    seal: (sub, id, secret) => sealGeneratorSecret(key, sub, id, secret),
  };
}
