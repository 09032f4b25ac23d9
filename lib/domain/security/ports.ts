export interface StoredGenerator {
  id: string;
  name: string;
  len: number;
  /** Sealed (lib/crypto/sealed-box); opened only to check a code. */
  secret: string;
  lastStep?: number;
}

/** TOTP generators and secrets waiting for enrolment (interface §4.15). */
export interface TotpRepository {
  /** Keeps an issued secret, sealed, until `expiresAt`. */
  putPending(sub: string, digest: string, sealedSecret: string, expiresAt: number): Promise<void>;
  pending(sub: string, digest: string, now: number): Promise<string | undefined>;
  /** The pending secret becomes a generator, once; false when the secret was taken meanwhile. */
  enrol(sub: string, digest: string, generator: StoredGenerator, now: number): Promise<boolean>;
  list(sub: string): Promise<StoredGenerator[]>;
  /** Records a used time step; false when that step or a later one was used already (replay). */
  useStep(sub: string, id: string, step: number): Promise<boolean>;
  remove(sub: string, id: string): Promise<boolean>;
}
