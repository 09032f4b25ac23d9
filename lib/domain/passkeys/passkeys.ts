import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Account } from "../accounts/account";
import type { SecurityEventLog } from "../audit/ports";
import type { SecurityEvent } from "../audit/security-event";
import { ApiError, problems } from "../errors";
import type { PendingWrite } from "../unit-of-work";
import { CHALLENGE_TTL_SECONDS, type ChallengePurpose, newChallenge, openChallenge } from "./challenge";
import type { PasskeyRepository, StoredPasskey, TakenChallenge } from "./ports";

/**
 * Passkeys (docs/passkeys.md), through @simplewebauthn/server. Every ceremony asks for user
 * verification, so a passkey alone is a multi-factor sign-in; credentials are discoverable
 * (resident), so the sign-in needs no user name.
 */

export interface RelyingParty {
  /** The WebAuthn RP ID: a domain, the issuer's host or a parent of it. */
  id: string;
  name: string;
  /** Web origins allowed to run ceremonies: the issuer's, and the applications' configured ones. */
  origins: string[];
}

export interface PasskeyDeps {
  passkeys: PasskeyRepository;
  events: SecurityEventLog;
  /** The data key's subkey that signs challenges. */
  key: () => Promise<Buffer>;
  relyingParty: RelyingParty;
  now: () => number;
}

/** What a listing shows: never the public key or the counter. */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: number;
  lastUsed?: number;
  backedUp: boolean;
  deviceType: StoredPasskey["deviceType"];
  transports: string[];
}

export const DEFAULT_PASSKEY_NAME = "Passkey";

export function passkeyView(p: StoredPasskey): PasskeyView {
  return {
    id: p.id,
    name: p.name,
    createdAt: p.createdAt,
    ...(p.lastUsed !== undefined && { lastUsed: p.lastUsed }),
    backedUp: p.backedUp,
    deviceType: p.deviceType,
    transports: p.transports,
  };
}

export async function listPasskeys(deps: Pick<PasskeyDeps, "passkeys">, sub: string): Promise<PasskeyView[]> {
  return (await deps.passkeys.list(sub)).map(passkeyView);
}

/** The user handle of every passkey is the account's sub, so a sign-in finds its account without a lookup. */
const userHandleOf = (sub: string) => new TextEncoder().encode(sub);

/**
 * The account's passkeys, and creation options for navigator.credentials.create(), from one
 * read. `binding` names who may answer them (the account for an application; the account and
 * the browser's CSRF token for the hosted pages).
 */
export async function registrationOptions(
  deps: PasskeyDeps,
  sub: string,
  binding: string,
): Promise<{ passkeys: PasskeyView[]; options: PublicKeyCredentialCreationOptionsJSON }> {
  const [found, key] = await Promise.all([deps.passkeys.accountWithPasskeys(sub), deps.key()]);
  if (!found) throw problems.unknownUser(sub);
  const { account, passkeys } = found;
  const label = account.email?.value ?? account.phone_number?.value ?? account.sub;
  const displayName = [account.given_name, account.family_name].filter(Boolean).join(" ");
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userName: label,
    userID: userHandleOf(account.sub),
    userDisplayName: displayName || label,
    challenge: newChallenge(key, "register", binding, deps.now()),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: "none",
    // The same authenticator twice would be one factor counted as two.
    excludeCredentials: passkeys.map((p) => ({ id: p.id, transports: p.transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  return { passkeys: passkeys.map(passkeyView), options };
}

/**
 * Request options for navigator.credentials.get(): any discoverable passkey of this RP. A plain
 * WebAuthn dictionary, built here rather than by the library: the sign-in page shows it on
 * every visit, and evaluating the library for it was most of the hosted cold start. The
 * challenge travels as the library would send it (base64url of its UTF-8), so its checks read it back.
 */
export async function authenticationOptions(
  deps: PasskeyDeps,
  binding: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const challenge = newChallenge(await deps.key(), "authenticate", binding, deps.now());
  return {
    rpId: deps.relyingParty.id,
    challenge: Buffer.from(challenge, "utf8").toString("base64url"),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    userVerification: "required",
  };
}

/**
 * The library, evaluated on the first ceremony: it sets up its attestation root certificates
 * and a DI container as it loads, which routes without passkeys would pay at every cold start.
 */
const webauthn = () => import("@simplewebauthn/server");

/** Checks a challenge the way the library asks: a function that also keeps what it opened. */
function challengeCheck(key: Buffer, purpose: ChallengePurpose, binding: string, now: number) {
  const found: { taken?: TakenChallenge } = {};
  return {
    found,
    check: (challenge: string) => {
      found.taken = openChallenge(key, challenge, purpose, binding, now);
      return found.taken !== undefined;
    },
  };
}

/** Runs a library check; whatever it refuses is a wrong passkey (it reads no storage). */
async function verified<T>(run: () => Promise<T>, desc: string): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw Object.assign(problems.wrongPasskey(desc), { cause: error });
  }
}

/** The account's new passkey, from the browser's answer to registrationOptions. */
export async function addPasskey(
  deps: PasskeyDeps,
  sub: string,
  input: { response: RegistrationResponseJSON; name?: string },
  binding: string,
  event: Omit<SecurityEvent, "type" | "result" | "sbj">,
): Promise<PasskeyView> {
  const now = deps.now();
  const { found, check } = challengeCheck(await deps.key(), "register", binding, now);
  const verification = await verified(
    async () =>
      (await webauthn()).verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: check,
        expectedOrigin: deps.relyingParty.origins,
        expectedRPID: deps.relyingParty.id,
        requireUserVerification: true,
      }),
    "the passkey's answer does not verify for this account, origin and challenge",
  );
  const info = verification.registrationInfo;
  if (!verification.verified || !info || !found.taken)
    throw problems.wrongPasskey("the passkey's answer does not verify");
  const passkey: StoredPasskey = {
    id: info.credential.id,
    publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
    counter: info.credential.counter,
    transports: info.credential.transports ?? input.response.response.transports ?? [],
    backedUp: info.credentialBackedUp,
    deviceType: info.credentialDeviceType,
    name: input.name ?? DEFAULT_PASSKEY_NAME,
    createdAt: now,
    ...(info.aaguid && info.aaguid !== "00000000-0000-0000-0000-000000000000" && { aaguid: info.aaguid }),
  };
  const added = await deps.passkeys.commit([
    ...deps.passkeys.addItems(sub, passkey),
    deps.passkeys.takeChallengeItem(found.taken),
    deps.events.putItem({
      ...event,
      sbj: sub,
      type: "passkey_add",
      result: "ok",
      prms: { passkey: passkey.id, name: passkey.name, backedUp: passkey.backedUp },
    }),
  ]);
  if (!added) throw problems.wrongPasskey("this passkey is registered already, or its challenge was used");
  return passkeyView(passkey);
}

/** A passkey that answered a challenge: its account, and the writes that record its use (for the sign-in's commit). */
export interface PasskeyProof {
  account: Account;
  passkey: StoredPasskey;
  writes: PendingWrite[];
}

/** The refusals of a passkey's answer, which a sign-in words for the user rather than failing. */
export function isPasskeyRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.error === "wrong_passkey" || error.error === "unknown_passkey");
}

function subOfUserHandle(handle: string | undefined): string | undefined {
  if (!handle) return undefined;
  const sub = Buffer.from(handle, "base64url").toString("utf8");
  return sub.length > 0 && sub.length <= 128 ? sub : undefined;
}

/**
 * Checks the browser's answer to authenticationOptions. Without `expectedSub` (a sign-in
 * with the passkey alone) the account comes from the user handle; with it (a second
 * factor) the passkey must be that account's.
 */
export async function checkPasskey(
  deps: PasskeyDeps,
  response: AuthenticationResponseJSON,
  binding: string,
  expectedSub?: string,
): Promise<PasskeyProof> {
  const handleSub = subOfUserHandle(response.response?.userHandle);
  const sub = expectedSub ?? handleSub;
  if (!sub || (expectedSub && handleSub && handleSub !== expectedSub)) throw problems.unknownPasskey();
  const { passkey, account } = typeof response.id === "string" ? await deps.passkeys.withAccount(sub, response.id) : {};
  if (!passkey || !account) throw problems.unknownPasskey();
  const now = deps.now();
  const { found, check } = challengeCheck(await deps.key(), "authenticate", binding, now);
  const verification = await verified(
    async () =>
      (await webauthn()).verifyAuthenticationResponse({
        response,
        expectedChallenge: check,
        expectedOrigin: deps.relyingParty.origins,
        expectedRPID: deps.relyingParty.id,
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")),
          counter: passkey.counter,
          transports: passkey.transports as never,
        },
        requireUserVerification: true,
      }),
    "the passkey's answer does not verify (challenge, origin, signature or counter)",
  );
  if (!verification.verified || !found.taken) throw problems.wrongPasskey("the passkey's answer does not verify");
  return {
    account,
    passkey,
    writes: [
      deps.passkeys.usedItem(sub, passkey, verification.authenticationInfo.newCounter, now),
      deps.passkeys.takeChallengeItem(found.taken),
    ],
  };
}

/**
 * A passkey as the second factor of `sub`'s sign-in: its answer must verify for that account,
 * and its use is recorded at once, like a TOTP step. False for any refusal.
 */
export async function passkeySecondFactor(
  deps: PasskeyDeps,
  sub: string,
  proof: { response: AuthenticationResponseJSON; binding: string },
): Promise<boolean> {
  try {
    const checked = await checkPasskey(deps, proof.response, proof.binding, sub);
    return await deps.passkeys.commit(checked.writes);
  } catch (error) {
    if (isPasskeyRefusal(error)) return false;
    throw error;
  }
}

export async function renamePasskey(deps: Pick<PasskeyDeps, "passkeys">, sub: string, id: string, name: string) {
  const renamed = await deps.passkeys.rename(sub, id, name);
  if (!renamed) throw problems.unknownPasskey();
  return passkeyView(renamed);
}

export async function deletePasskey(
  deps: Pick<PasskeyDeps, "passkeys" | "events">,
  sub: string,
  id: string,
  event: Omit<SecurityEvent, "type" | "result" | "sbj">,
): Promise<void> {
  const recorded = deps.events.putItem({
    ...event,
    sbj: sub,
    type: "passkey_delete",
    result: "ok",
    prms: { passkey: id },
  });
  let outcome = await deps.passkeys.commitTelling([...deps.passkeys.removeItems(sub, id), recorded]);
  if (outcome === "claim-of-another") {
    // A passkey stored before claims existed, whose credential id another account has
    // claimed since (svc-admin passkeys claim reports these): this account's passkey goes,
    // the other account's claim stays with the passkey it guards.
    outcome = await deps.passkeys.commitTelling([...deps.passkeys.removeItems(sub, id, { keepClaim: true }), recorded]);
  }
  if (outcome !== "committed") throw problems.unknownPasskey();
}
