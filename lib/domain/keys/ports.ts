import type { PendingWrite } from "../unit-of-work";

/** A signing key's public facts, as stored; never its private half. Times in seconds since the epoch. */
export interface PublishedSigningKey {
  kid: string;
  alg: string;
  use: string;
  createdAt: number;
  /** When it starts (or started) signing. */
  activatesAt: number;
  /** Set once rotated out: it stops signing once its successor activates, and leaves JWKS at this time. */
  retireAt?: number;
}

/** What one rotation did: a new key per algorithm, the keys it retired and until when they stay published. */
export interface KeyRotation {
  keys: { alg: string; kid: string; activatesAt: number }[];
  retired: string[];
  retireAt: number;
}

/** The signing keys, rotated as the token layer makes them (lib/tokens/rotation.ts). */
export interface SigningKeyRotator {
  list(): Promise<PublishedSigningKey[]>;
  /** Staged unless `now`; what `alsoWrite` makes of the rotation commits with it, all or none. */
  rotate(now: boolean, alsoWrite: (rotation: KeyRotation) => PendingWrite[]): Promise<KeyRotation>;
}

/** A staged rotation while the last one's key has not started signing: it would sign past its retirement. */
export class RotationUnderWayError extends Error {
  constructor(
    readonly kid: string,
    readonly signsFrom: number,
  ) {
    super(`key ${kid} signs from ${new Date(signsFrom * 1000).toISOString()}: rotate after that, or now with --now`);
    this.name = "RotationUnderWayError";
  }
}

/** Another rotation retired the same keys at the same moment; nothing was written. */
export class ConcurrentRotationError extends Error {
  constructor() {
    super("another rotation retired these keys at the same time; nothing was written");
    this.name = "ConcurrentRotationError";
  }
}
