import { config } from "../config";
import { documentClient } from "../document-client";
import { type BackchannelDeps, type EndedSession, tellEndedSessions } from "../domain/sessions/backchannel-logout";
import { log } from "../log";
import { createSigningKeyStore } from "../store/signing-keys";
import { logoutTokenSigner } from "../tokens/access-token";
import { createKeyRing } from "../tokens/key-ring";
import { postLogoutToken } from "./backchannel-post";

let deps: BackchannelDeps | undefined;

/** The key ring reads only the signing keys' partition (infra: signsLogoutTokens); kept for the container's life. */
function backchannelDeps(): BackchannelDeps {
  deps ??= {
    sign: logoutTokenSigner(
      createKeyRing(createSigningKeyStore({ client: documentClient(), tableName: config().tableName })),
      config().issuer,
    ),
    post: postLogoutToken,
    pause: (attempt) => new Promise((done) => setTimeout(done, 200 * 2 ** attempt)),
    now: () => Math.floor(Date.now() / 1000),
  };
  return deps;
}

/** Tells the clients of the ended sessions; a client that stays down is logged, not retried through the stream. */
export async function tellEndedSessionsOnce(ended: readonly EndedSession[]): Promise<void> {
  const { told, refused } = await tellEndedSessions(ended, backchannelDeps());
  log.info("back-channel logout told", { told });
  for (const session of refused) {
    log.warn("back-channel logout refused by the client", { clientId: session.clientId, sid: session.sid });
  }
}
