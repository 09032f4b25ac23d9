import { problems } from "../errors";

/**
 * The audit read's `rql` (interface §4.16): `and(ge(ts,<ms>),le(ts,<ms>),limit(<n>))`, each part
 * optional and in any order, or one part alone. The shared RQL parser (lib/domain/search)
 * knows only equality; this grammar is small enough to read here, and every form it
 * accepts is one DynamoDB range query on the event's sort key.
 */
export interface EventQuery {
  from?: number;
  to?: number;
  limit: number;
}

export const EVENT_QUERY_LIMITS = { defaultLimit: 100, maxLimit: 1000 } as const;

const PART = /^(ge|le|gt|lt)\(ts,(\d{1,15})\)$|^limit\((\d{1,4})\)$/;

function malformed(desc: string) {
  return problems.wrongValue("rql", `${desc}; expected and(ge(ts,<ms>),le(ts,<ms>),limit(<n>))`);
}

export function parseEventQuery(rql: string | undefined): EventQuery {
  const query: EventQuery = { limit: EVENT_QUERY_LIMITS.defaultLimit };
  if (rql === undefined || rql.trim() === "") return query;
  const text = rql.replace(/\s+/g, "");
  const inner = text.startsWith("and(") && text.endsWith(")") ? text.slice(4, -1) : text;
  const parts = inner.split(/,(?=(?:ge|le|gt|lt|limit)\()/);
  for (const part of parts) {
    const match = PART.exec(part);
    if (!match) throw malformed(`"${part.slice(0, 40)}" is not a condition on ts or a limit`);
    if (match[3] !== undefined) {
      const limit = Number(match[3]);
      if (limit < 1 || limit > EVENT_QUERY_LIMITS.maxLimit)
        throw malformed(`limit must be 1 to ${EVENT_QUERY_LIMITS.maxLimit}`);
      query.limit = limit;
      continue;
    }
    const at = Number(match[2]);
    if (match[1] === "ge") query.from = Math.max(query.from ?? 0, at);
    if (match[1] === "gt") query.from = Math.max(query.from ?? 0, at + 1);
    if (match[1] === "le") query.to = Math.min(query.to ?? Number.MAX_SAFE_INTEGER, at);
    if (match[1] === "lt") query.to = Math.min(query.to ?? Number.MAX_SAFE_INTEGER, at - 1);
  }
  return query;
}
