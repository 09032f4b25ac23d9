import { services } from "../../lib/services";

/**
 * Notes "session checked" in `order` each time a user token's session check answers,
 * by wrapping the real store's read; returns the function that puts the store back.
 */
export function noteSessionChecks(order: string[]): () => void {
  const sessions = services().sessions;
  const { sessionAndAccount } = sessions;
  sessions.sessionAndAccount = async (...args) => {
    const read = await sessionAndAccount.apply(sessions, args);
    order.push("session checked");
    return read as never;
  };
  return () => {
    sessions.sessionAndAccount = sessionAndAccount;
  };
}
