/**
 * A security event (interface §6): every user-mode call and every login records one, with
 * the user's address and User-Agent. Field names follow the original product's audit
 * format. Never holds a secret: `prms` carries only what was done.
 */
export interface SecurityEvent {
  /** The account, or with `sbjType` its, the application. */
  sbj: string;
  /** `its`: `sbj` is an application whose registration changed (interface §4.17). */
  sbjType?: "its";
  /** Milliseconds since the epoch. */
  ts: number;
  type: string;
  /** The application. */
  cId: string;
  ip?: string;
  ua?: string;
  sid?: string;
  /** `ok`, or the error code that refused the call. */
  result: string;
  prms?: Record<string, string | number | boolean | string[]>;
}

/** Who made an admin API change and from where (interface §6): the application's event, `prms` never a secret. */
export type AdminChangeEvent = Pick<SecurityEvent, "type" | "cId" | "ip" | "ua" | "prms">;

/** The event a sign-in records (lib/domain/sign-in): result `ok`, or the error that refused it. */
export const SIGN_IN_EVENT = "login";
/** The event an account's creation by registration records, in its transaction (lib/domain/registration). */
export const REGISTRATION_EVENT = "registration";
