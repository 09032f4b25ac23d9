import type { StoreDeps, TransactItem } from "./accounts";
import { ENTITY, itemOf, keys } from "./keys";

/** A sign-in session of an account (registration opens the first one). */
export interface SessionRecord {
  sid: string;
  sub: string;
  clientId: string;
  /** Digest of the secret half of the session cookie. */
  secretHash: string;
  ip?: string;
  userAgent?: string;
  createdAt: number;
  lastUsedAt: number;
  /** TTL: the session ends then at the latest. */
  expiresAt: number;
}

export function createSessionStore({ tableName }: StoreDeps) {
  return {
    /** The put of a new session, for the transaction that opens it. */
    putItem(session: SessionRecord): TransactItem {
      return {
        Put: {
          TableName: tableName,
          Item: itemOf(ENTITY.session, keys.session(session.sub, session.sid), session),
          // Session ids are random; a collision must fail rather than take over a session.
          ConditionExpression: "attribute_not_exists(PK)",
        },
      };
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
