/**
 * The table's shape, shared by the CDK stack and the local table creation so the two
 * cannot drift (docs/architecture.md).
 */
export const TABLE = {
  partitionKey: "PK",
  sortKey: "SK",
  ttlAttribute: "expiresAt",
  gsi1: { name: "GSI1", partitionKey: "GSI1PK", sortKey: "GSI1SK" },
  /** Old and new images: the event stream (docs/events.md) maps each committed change from both. */
  streamView: "NEW_AND_OLD_IMAGES",
} as const;
