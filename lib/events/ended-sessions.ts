import type { EndedSession } from "../domain/sessions/backchannel-logout";
import { ENTITY } from "../store/keys";
import type { ChangeRecord } from "./mapping";

/**
 * Sessions of Back-Channel Logout clients that ended in these changes: removed, not by
 * their expiry (TTL), which the client's own tokens outlive no longer.
 */
export function endedSessionsOf(changes: readonly ChangeRecord[]): EndedSession[] {
  return changes.flatMap((change) => {
    const old = change.oldImage;
    if (change.kind !== "REMOVE" || change.expired || old?.entity !== ENTITY.session) return [];
    const told = old.backchannelLogout as EndedSession["backchannelLogout"] | undefined;
    if (!told || typeof old.sub !== "string" || typeof old.sid !== "string" || typeof old.clientId !== "string")
      return [];
    return [
      {
        sub: old.sub,
        sid: old.sid,
        clientId: old.clientId,
        ...(typeof old.browserSid === "string" && { browserSid: old.browserSid }),
        backchannelLogout: told,
      },
    ];
  });
}
