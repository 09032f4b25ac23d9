import { ApiError, problems } from "../errors";
import { hourOf } from "../login/brute-force";
import {
  changePassword,
  leadLacksRight,
  type PasswordChangeDeps,
  type PasswordChangeInput,
  SUBORDINATE_RIGHT,
} from "./change-password";

/** interface §4.2: a lead account sets the password of an account it manages. */
export interface SubordinateChange extends Pick<PasswordChangeInput, "password" | "language" | "event" | "snapshot"> {
  /** The lead: the user token's owner; undefined for any other caller. */
  lead: string | undefined;
  managed: string;
}

export type PasswordUseCases = ReturnType<typeof passwordUseCases>;

/** Password changes through the API (interface §4.1, 4.2). */
export function passwordUseCases(deps: PasswordChangeDeps) {
  return {
    /** What a user-mode change reads with its session check: the account and its failure counters. */
    snapshotPrefetch: (sub: string, sourceIp: string | undefined, now: number) =>
      deps.logins.snapshotPrefetch({ sub }, sourceIp ? [sourceIp] : [], hourOf(now)),

    /** The managed account and whether the lead holds the right over it, read with the lead's session check. */
    subordinateSnapshotPrefetch: (managed: string, lead: string) =>
      deps.logins.accountSnapshotPrefetch(managed, { lead, right: SUBORDINATE_RIGHT }),

    change: (input: PasswordChangeInput) => changePassword(input, deps),

    async changeSubordinate(input: SubordinateChange): Promise<void> {
      const { lead, managed } = input;
      if (!lead) throw leadLacksRight();
      try {
        await changePassword(
          {
            sub: managed,
            lead,
            mode: "system",
            password: input.password,
            resetSessions: true,
            language: input.language,
            event: { ...input.event, cId: `${input.event.cId} via ${lead}` },
            snapshot: input.snapshot,
          },
          deps,
        );
      } catch (error) {
        // The managed account's own error, whatever the snapshot said.
        if (error instanceof ApiError && error.error === "unknown_user") throw problems.unknownUser(managed);
        throw error;
      }
    },
  };
}
