import { randomBytes } from "node:crypto";
import type { Account } from "../accounts/account";
import { problems } from "../errors";
import { qrCodes } from "../qr-codes";
import type { TotpRepository } from "./ports";
import {
  matchingStep,
  newTotpSecret,
  openGeneratorSecret,
  openPendingSecret,
  sealGeneratorSecret,
  sealPendingSecret,
  secretDigest,
  TOTP_DIGITS,
  totpUri,
} from "./totp";

/** How long an issued secret waits for its first code (interface §4.15 attach). */
export const PENDING_SECRET_SECONDS = 600;

export interface TotpDeps {
  totps: TotpRepository;
  /** The data key's subkey for TOTP secrets. */
  key: () => Promise<Buffer>;
  issuer: string;
  now: () => number;
}

export interface TotpView {
  id: string;
  len: number;
  name: string;
}

export async function listGenerators(deps: Pick<TotpDeps, "totps">, sub: string): Promise<TotpView[]> {
  return (await deps.totps.list(sub)).map(({ id, len, name }) => ({ id, len, name }));
}

function accountLabel(account: Account): string {
  return account.email?.value ?? account.phone_number?.value ?? account.sub;
}

/** A new secret for this account, kept pending and sealed, with its QR code (PNG, base64). */
export async function issueSecret(
  deps: TotpDeps,
  account: Account,
): Promise<{ base64QRCode: string; base32Secret: string }> {
  const secret = await newTotpSecret();
  const key = await deps.key();
  await deps.totps.putPending(
    account.sub,
    secretDigest(secret),
    sealPendingSecret(key, account.sub, secret),
    deps.now() + PENDING_SECRET_SECONDS,
  );
  const png = await (await qrCodes()).toBuffer(await totpUri(deps.issuer, accountLabel(account), secret), {
    type: "png",
  });
  return { base64QRCode: png.toString("base64"), base32Secret: secret };
}

/** Stores a generator when the code is right for a secret this service issued to this account. */
export async function attachGenerator(
  deps: TotpDeps,
  sub: string,
  input: { base32Secret: string; otpCode: string; name?: string },
): Promise<void> {
  const digest = secretDigest(input.base32Secret);
  const now = deps.now();
  const sealed = await deps.totps.pending(sub, digest, now);
  if (!sealed) throw problems.wrongOtpCode();
  const key = await deps.key();
  const secret = openPendingSecret(key, sub, digest, sealed);
  const step = await matchingStep(secret, input.otpCode);
  if (step === undefined) throw problems.wrongOtpCode();
  const id = randomBytes(12).toString("base64url");
  const stored = await deps.totps.enrol(
    sub,
    digest,
    {
      id,
      name: input.name ?? "TOTP",
      len: TOTP_DIGITS,
      secret: sealGeneratorSecret(key, sub, id, secret),
      // The enrolment code is used: it does not open a login afterwards.
      lastStep: step,
    },
    now,
  );
  if (!stored) throw problems.wrongOtpCode();
}

export async function detachGenerator(deps: Pick<TotpDeps, "totps">, sub: string, id: string): Promise<void> {
  if (!(await deps.totps.remove(sub, id))) throw problems.unknownTotp();
}

/** The second factor of the password grant: a fresh code of any of the account's generators. */
export async function verifyTotp(deps: TotpDeps, sub: string, code: string): Promise<boolean> {
  const generators = await deps.totps.list(sub);
  if (generators.length === 0) return false;
  const key = await deps.key();
  for (const generator of generators) {
    const secret = openGeneratorSecret(key, sub, generator.id, generator.secret);
    const step = await matchingStep(secret, code, generator.lastStep);
    if (step !== undefined) return deps.totps.useStep(sub, generator.id, step);
  }
  return false;
}
