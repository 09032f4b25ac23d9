import type { SecurityEventLog } from "../audit/ports";
import type { AdminChangeEvent } from "../audit/security-event";
import { ApiError } from "../errors";
import {
  ConcurrentRotationError,
  type KeyRotation,
  type PublishedSigningKey,
  RotationUnderWayError,
  type SigningKeyRotator,
} from "./ports";

/**
 * The signing keys for operators (the admin API and `svc-admin keys rotate`): what each key
 * does now, and rotations recorded as the calling application's security events.
 */

export type KeyState = "next" | "signing" | "retiring";

export interface KeyView {
  kid: string;
  alg: string;
  use: string;
  /** next: published, not signing yet; signing; retiring: verifies, signs no more. */
  state: KeyState;
  createdAt: number;
  activatesAt: number;
  /** When it leaves JWKS; absent while no rotation has retired it. */
  retiresAt?: number;
  /** A signing key a staged rotation retired: when its successor takes over. */
  signsUntil?: number;
}

export interface RotationView {
  mode: "staged" | "now";
  keys: KeyRotation["keys"];
  retired: string[];
  /** When the retired keys leave JWKS: until then they verify what they signed. */
  retiredUntil: number;
  warning?: string;
}

/** What an emergency rotation does and does not do, for the answer and the API's description. */
export const EMERGENCY_WARNING =
  "Emergency rotation: the new keys sign at once. Relying parties that fetched JWKS before now refuse the new keys' tokens until they fetch it again (they may keep it for its max-age, 300 s). The retired keys are not revoked: they stay in JWKS and verify every token they signed until retiredUntil, including any a leaked key signs meanwhile.";

export interface KeyDeps {
  signingKeys: SigningKeyRotator;
  events: Pick<SecurityEventLog, "putItem">;
  clock?: () => number;
}

const rotationProblem = (error: string, desc: string) => new ApiError(409, "process_error", error, desc);

/** Each published key's state at `now` (seconds), as the key ring signs and verifies (lib/tokens/key-ring.ts). */
export function keyStates(published: PublishedSigningKey[], now: number): KeyView[] {
  const live = published.filter((k) => k.retireAt === undefined || k.retireAt > now);
  const views: KeyView[] = [];
  for (const alg of new Set(live.map((k) => k.alg))) {
    // Newest activation first; of two activating together, the one that retired the other signs.
    const ofAlg = live
      .filter((k) => k.alg === alg)
      .sort(
        (a, b) => b.activatesAt - a.activatesAt || Number(a.retireAt !== undefined) - Number(b.retireAt !== undefined),
      );
    const signing = ofAlg.find((k) => k.activatesAt <= now);
    // A key retired before it signed activates as it leaves JWKS (lib/store/signing-keys.ts): never next.
    const next = ofAlg.filter((k) => k.activatesAt > now && k.retireAt === undefined);
    const successor = next.at(-1);
    for (const key of ofAlg) {
      const state: KeyState = next.includes(key) ? "next" : key === signing ? "signing" : "retiring";
      views.push({
        kid: key.kid,
        alg: key.alg,
        use: key.use,
        state,
        createdAt: key.createdAt,
        activatesAt: key.activatesAt,
        ...(key.retireAt !== undefined && { retiresAt: key.retireAt }),
        ...(state === "signing" && successor && { signsUntil: successor.activatesAt }),
      });
    }
  }
  return views.sort((a, b) => b.activatesAt - a.activatesAt || a.alg.localeCompare(b.alg));
}

export type KeyUseCases = ReturnType<typeof keyUseCases>;

export function keyUseCases(deps: KeyDeps) {
  const clock = deps.clock ?? Date.now;
  return {
    async list(): Promise<{ keys: KeyView[] }> {
      return { keys: keyStates(await deps.signingKeys.list(), Math.floor(clock() / 1000)) };
    },

    /** A rotation, committed with its security event; 409 while a staged one is under way. */
    async rotate(now: boolean, event: AdminChangeEvent): Promise<RotationView> {
      let rotation: KeyRotation;
      try {
        rotation = await deps.signingKeys.rotate(now, (done) => [
          deps.events.putItem({
            ...event,
            sbj: event.cId ?? "unknown",
            sbjType: "its",
            ts: clock(),
            result: "ok",
            prms: { ...event.prms, now, kids: done.keys.map((k) => k.kid), retired: done.retired },
          }),
        ]);
      } catch (error) {
        if (error instanceof RotationUnderWayError)
          throw rotationProblem(
            "rotation_under_way",
            `key ${error.kid} signs from ${new Date(error.signsFrom * 1000).toISOString()}: rotate after that, or with now`,
          );
        if (error instanceof ConcurrentRotationError) throw rotationProblem("concurrent_rotation", error.message);
        throw error;
      }
      return {
        mode: now ? "now" : "staged",
        keys: rotation.keys,
        retired: rotation.retired,
        retiredUntil: rotation.retireAt,
        ...(now && { warning: EMERGENCY_WARNING }),
      };
    },
  };
}
