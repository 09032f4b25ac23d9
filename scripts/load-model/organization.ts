import { AWS_LIMITS } from "./model";

/**
 * One organization of `members` members (docs/organizations.md "Scale"): the DynamoDB
 * reads and writes of each organization operation, and the organization's own partition
 * (GROUP#org#<id>) and the one all organizations share (GROUPS#org) under a listing and a join wave. Derived from the code's reads and
 * writes (lib/store/organizations.ts, organization-roles.ts, domain-directory.ts).
 */

export interface OrgFacts {
  /** lib/domain/organizations/organizations.ts ORG_MEMBERS_PER_PAGE. */
  membersPerPage: number;
  /** Roles each member holds (each is a grant in the member's partition and a mirror in the organization's). */
  rolesPerMember: number;
}

export interface OrgScenario {
  members: number;
  /** Members joining per second at the wave's peak (invitations accepted, SSO first sign-ins). */
  joinsPerSecond: number;
  /** Member pages listed per second (an admin console, a sync job). */
  pagesPerSecond: number;
}

export interface OrgOperation {
  operation: string;
  /** DynamoDB calls, in order of waits (side by side calls share a wait). */
  calls: string;
  rcu: number;
  wcu: number;
  /** Capacity that lands in the organization's partition, the only one shared by its members. */
  orgPartitionRcu: number;
  orgPartitionWcu: number;
  /**
   * Capacity on GROUPS#org, the partition of every organization's record: each change's
   * transaction checks the record is live (a ConditionCheck, billed as a transactional write).
   */
  profilePartitionWcu: number;
}

// Item sizes as stored (keys, entity, schema version and fields), rounded up.
const MEMBER_BYTES = 130;
const HOLDER_BYTES = 200;
const KB = 1024;
/** A strongly consistent read costs 1 RCU per 4 KB; eventually consistent half; a transaction twice. */
const consistent = (bytes: number) => Math.ceil(bytes / (4 * KB));
const eventual = (bytes: number) => consistent(bytes) / 2;
const written = (bytes: number) => Math.ceil(bytes / KB);

export function organizationOperations(f: OrgFacts): OrgOperation[] {
  const r = f.rolesPerMember;
  const page = f.membersPerPage;
  // The session check: one BatchGetItem of the session, the account and the caller's ORG_ADMIN grant.
  const session = 3;
  // One security event per user-mode call, in the caller's partition.
  const event = 1;
  // An added member: the account's check, member + mirror, a grant + holder per role;
  // the record's and the caller's ORG_ADMIN checks are the two more items below.
  const joinItems = 3 + 2 * r;
  return [
    {
      operation: `members, one page of ${page}`,
      calls: "BatchGetItem (session) · Query (members) · BatchGetItem (names) ‖ Query (roles)",
      rcu: session + consistent(page * MEMBER_BYTES) + page * eventual(KB) + consistent(page * r * HOLDER_BYTES),
      wcu: event,
      orgPartitionRcu: consistent(page * MEMBER_BYTES) + consistent(page * r * HOLDER_BYTES),
      orgPartitionWcu: 0,
      profilePartitionWcu: 0,
    },
    {
      operation: `add a member with ${r} role(s)`,
      calls: "BatchGetItem (session) · TransactWriteItems",
      rcu: session,
      wcu: 2 * (joinItems + 2) + 2 * event,
      orgPartitionRcu: 0,
      orgPartitionWcu: 2 * written(MEMBER_BYTES) + 2 * r * written(HOLDER_BYTES),
      profilePartitionWcu: 2,
    },
    {
      operation: "remove a member",
      calls: "BatchGetItem (session) · GetItem ‖ Query (its roles) · TransactWriteItems",
      rcu: session + 1 + 1,
      wcu: 2 * (2 + 2 * r + 2) + 2 * event,
      orgPartitionRcu: 0,
      orgPartitionWcu: 2 * written(MEMBER_BYTES) + 2 * r * written(HOLDER_BYTES),
      profilePartitionWcu: 2,
    },
    {
      operation: "org_id/org_roles at a token, refresh or userinfo",
      calls: "GetItem (membership mirror) ‖ Query (grants), both in the member's own partition",
      rcu: 1 + 1,
      wcu: 0,
      orgPartitionRcu: 0,
      orgPartitionWcu: 0,
      profilePartitionWcu: 0,
    },
    {
      operation: "home-realm discovery (an address typed)",
      calls: "GetItem (DOMAIN#<domain>)",
      rcu: 0.5,
      wcu: 0,
      orgPartitionRcu: 0,
      orgPartitionWcu: 0,
      profilePartitionWcu: 0,
    },
  ].map((op) => ({ ...op, rcu: round(op.rcu), wcu: round(op.wcu) }));
}

export interface OrgPartitionLoad {
  rcuPerSecond: number;
  wcuPerSecond: number;
  overPartition: boolean;
  /** Joins per second the partition takes before its 1,000 WCU/s. */
  maxJoinsPerSecond: number;
  /** Pages per second it serves before its 3,000 RCU/s. */
  maxPagesPerSecond: number;
  /** Member changes per second, across all organizations, before GROUPS#org's 1,000 WCU/s. */
  maxChangesAcrossOrganizations: number;
  wholeListing: { pages: number; rcu: number };
}

export function organizationPartition(f: OrgFacts, s: OrgScenario): OrgPartitionLoad {
  const ops = organizationOperations(f);
  const listPage = ops[0];
  const join = ops[1];
  const rcuPerSecond = s.pagesPerSecond * listPage.orgPartitionRcu;
  const wcuPerSecond = s.joinsPerSecond * join.orgPartitionWcu;
  const pages = Math.ceil(s.members / f.membersPerPage);
  return {
    rcuPerSecond: round(rcuPerSecond),
    wcuPerSecond: round(wcuPerSecond),
    overPartition: rcuPerSecond > AWS_LIMITS.partitionRcu || wcuPerSecond > AWS_LIMITS.partitionWcu,
    maxJoinsPerSecond: Math.floor(AWS_LIMITS.partitionWcu / join.orgPartitionWcu),
    maxPagesPerSecond: Math.floor(AWS_LIMITS.partitionRcu / listPage.orgPartitionRcu),
    maxChangesAcrossOrganizations: Math.floor(AWS_LIMITS.partitionWcu / join.profilePartitionWcu),
    wholeListing: { pages, rcu: pages * listPage.rcu },
  };
}

const round = (n: number) => Math.round(n * 10) / 10;
