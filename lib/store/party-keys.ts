import type { Party } from "../domain/rights/parties";
import { keys, type TableKey } from "./keys";

/** Where a party's item collection is, and the item that proves the party exists. */

export function partyPartition(party: Party): string {
  switch (party.kind) {
    case "user":
      return keys.userPartition(party.id);
    case "its":
      return keys.clientPartition(party.id);
    case "grps":
      return keys.groupPartition(party.profile, party.id);
  }
}

/** The item must exist: an account or an application. */
const recordExists = "attribute_exists(PK)";
/** A group counts only while it is not being deleted (lib/store/groups.ts). */
const groupLive = "attribute_exists(PK) AND attribute_not_exists(deleting)";

export function partyRecord(party: Party): { key: TableKey; condition: string } {
  switch (party.kind) {
    case "user":
      return { key: keys.userProfile(party.id), condition: recordExists };
    case "its":
      return { key: keys.client(party.id), condition: recordExists };
    case "grps":
      return { key: keys.group(party.profile, party.id), condition: groupLive };
  }
}

/**
 * The item in the party's own partition that proves it exists, so a Query of its rights
 * can take it in the same key range: the profile, the application's record, a group's
 * head (its record lives with its profile's groups).
 */
export function partyMarker(party: Party): TableKey {
  return party.kind === "grps" ? keys.groupHead(party.profile, party.id) : partyRecord(party).key;
}
