import type { HookName } from "../lib/domain/hooks/contracts";
import { FUNCTION_NAMES, type FunctionName } from "../lib/http/route";
import { HASHING_MEMORY_MB, MEMORY_MB } from "./sizing";

/**
 * What each endpoint group may do, so the stack grants exactly that (least privilege).
 * A full record on purpose: a new entry in FUNCTION_NAMES does not compile until it
 * says what it needs here.
 */
export interface FunctionNeeds {
  /** stream: reads the table's stream only (its event source), never the table's items; none: no grant at all. */
  table: "none" | "read" | "read-write" | "stream";
  /** Publishes to the event bus (events:PutEvents on that bus only). */
  publishes?: true;
  /** Sends SMS (SNS) or e-mail (SES). */
  messaging?: true;
  /** EventBridge schedule expression; the function then runs on it. */
  schedule?: string;
  /** Reads the data key secret (encrypts stored external tokens and TOTP secrets, signs bind states). */
  dataKey?: true;
  /** Reads the signing keys' partition alone (Query with a leading-key condition): signs logout tokens. */
  signsLogoutTokens?: true;
  /** Writes the identity events it published, for the admin console (BatchWriteItem on their partitions only). */
  keepsIdentityEvents?: true;
  /** Hashes passwords or security answers (scrypt, one core for about half a second) on its hot path. */
  hashes?: true;
}

export const FUNCTION_NEEDS: Record<FunctionName, FunctionNeeds> = {
  // Refresh-token sessions are stored by the token endpoint.
  // Second-factor codes are checked against sealed TOTP secrets.
  // Password grants verify a password hash, and send sign-in codes by SMS or e-mail when enabled.
  token: { table: "read-write", dataKey: true, hashes: true, messaging: true },
  // Phone and e-mail changes are confirmed by a code sent to the new contact.
  users: { table: "read-write", messaging: true },
  // Codes go out by SMS and e-mail; accounts are created.
  registration: { table: "read-write", messaging: true, hashes: true },
  meta: { table: "read" },
  // Links, their claims, bind states and stored external tokens; calls external providers.
  // Binding accepts the user's own login and password (HTTP Basic).
  federation: { table: "read-write", dataKey: true, hashes: true },
  // Grants and their mirrors, and the rights catalogue.
  rights: { table: "read-write" },
  // Groups, members both ways; deleting a group also clears the rights held on it.
  // Messaging: an organization invitation's message (docs/organizations.md#invitations);
  // the data key seals organizations' SSO client secrets.
  groups: { table: "read-write", messaging: true, dataKey: true },
  // New credentials, sessions ended; generated passwords by SMS, change notices by e-mail.
  passwords: { table: "read-write", messaging: true, hashes: true },
  // Authentication modes and account state on the profile; TOTP secrets sealed with the data key;
  // security answers hashed and checked.
  security: { table: "read-write", dataKey: true, hashes: true },
  // Devices forgotten and sessions ended.
  devices: { table: "read-write" },
  // Security events read, one account's from its partition and every account's from GSI1 (the
  // table grant covers its indexes); consents withdrawn with their application's sessions.
  audit: { table: "read-write" },
  // The sign-in pages: passwords hashed and checked, TOTP secrets unsealed, interaction
  // states signed with the data key, registration and reset codes sent.
  hosted: { table: "read-write", dataKey: true, hashes: true, messaging: true },
  // The account console: the hosted session's own account; passwords checked again and changed,
  // TOTP secrets sealed, contact codes and change notices sent.
  account: { table: "read-write", dataKey: true, hashes: true, messaging: true },
  // Applications registered, changed and deleted over the admin API, with their security events;
  // the signing keys listed and rotated (public halves read, new keys written, never a private key read).
  clients: { table: "read-write" },
  // The daily inactivity lock (no HTTP route).
  jobs: { table: "read-write", schedule: "cron(30 2 * * ? *)" },
  // The event stream: committed changes from the table's stream to the event bus (no HTTP route),
  // Back-Channel Logout tokens for the sessions that ended, and what it published kept for the console.
  events: { table: "stream", publishes: true, signsLogoutTokens: true, keepsIdentityEvents: true },
  // The admin console's files (a page, its script and style sheet): the browser calls the API itself.
  console: { table: "none" },
  // SCIM provisioning (docs/scim.md): accounts created and locked, memberships, sessions ended.
  scim: { table: "read-write" },
};

/** The function's configured memory (the stack's memorySize, what Lambda bills GB-seconds by). */
export function memoryMbOf(name: FunctionName): number {
  return FUNCTION_NEEDS[name].hashes ? HASHING_MEMORY_MB : MEMORY_MB;
}

export const MESSAGING_FUNCTIONS: ReadonlySet<FunctionName> = new Set(
  FUNCTION_NAMES.filter((name) => FUNCTION_NEEDS[name].messaging),
);

/**
 * The endpoint groups whose code paths call each hook (docs/hooks.md): only they may invoke it.
 * Sign-ins, registrations and forgotten passwords run in token and hosted (the pages) and
 * registration; every function that sends a message renders it through customMessage.
 */
export const HOOK_CALLERS: Record<HookName, readonly FunctionName[]> = {
  preRegistration: ["registration", "hosted"],
  postConfirmation: ["registration", "hosted"],
  userMigration: ["token", "hosted"],
  preSignIn: ["token", "hosted"],
  postSignIn: ["token", "hosted"],
  preTokenIssue: ["token"],
  customMessage: [...MESSAGING_FUNCTIONS],
};
