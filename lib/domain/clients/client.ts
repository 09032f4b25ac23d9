import { digestSecret, generateSecret } from "../credentials/secret-digest";
import { permissionKind } from "../permissions";

/** An application allowed to call the service (interface §5.2, 5.4). */
export interface ClientRecord {
  clientId: string;
  /** Permissions the client may obtain (interface §5.3). */
  scopes: string[];
  redirectUris: string[];
  /** Whether a v1/v2 REST password is set (interface §5.4). */
  hasRestPassword: boolean;
  createdAt: number;
  updatedAt: number;
}

/** Stored digests, never the secrets themselves. */
export interface ClientSecrets {
  secretHash: string;
  restPasswordHash?: string;
}

/** Below this, an operator-chosen secret is guessable offline from its SHA-256 digest. */
export const MIN_SECRET_LENGTH = 32;

/**
 * Short operator-chosen secrets are accepted (scripts and test rigs use them) but
 * reported, since only generated 256-bit secrets make a plain digest safe.
 */
export function weakSecretWarnings(def: ClientDefinition): string[] {
  const warnings: string[] = [];
  if (def.secret !== undefined && def.secret.length < MIN_SECRET_LENGTH) {
    warnings.push(
      `the client secret is shorter than ${MIN_SECRET_LENGTH} characters; leave it out to get a generated one`,
    );
  }
  if (def.restPassword !== undefined && def.restPassword.length < MIN_SECRET_LENGTH) {
    warnings.push(`the REST password is shorter than ${MIN_SECRET_LENGTH} characters`);
  }
  return warnings;
}

export const CLIENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

export interface ClientDefinition {
  clientId: string;
  secret?: string;
  scopes: string[];
  redirectUris?: string[];
  restPassword?: string;
}

/** Validates a definition; returns the problems in plain words for an operator. */
export function clientDefinitionProblems(def: ClientDefinition): string[] {
  const problems: string[] = [];
  if (!CLIENT_ID_PATTERN.test(def.clientId)) {
    problems.push("client id must be 1-128 letters, digits or . _ ~ - and start with a letter or digit");
  }
  if (def.secret === "" || def.restPassword === "") problems.push("a secret cannot be empty");
  const unknown = def.scopes.filter((s) => permissionKind(s) === undefined);
  if (unknown.length > 0) problems.push(`unknown permissions: ${unknown.join(" ")}`);
  for (const uri of def.redirectUris ?? []) {
    if (!URL.canParse(uri) || uri.includes("#")) problems.push(`redirect URI is not an absolute URL: ${uri}`);
  }
  return problems;
}

/** Builds the record and digests; the returned secret is shown once and never stored. */
export function buildClient(def: ClientDefinition, now: number) {
  const secret = def.secret ?? generateSecret();
  const record: ClientRecord = {
    clientId: def.clientId,
    scopes: [...new Set(def.scopes)],
    redirectUris: def.redirectUris ?? [],
    hasRestPassword: def.restPassword !== undefined,
    createdAt: now,
    updatedAt: now,
  };
  const secrets: ClientSecrets = {
    secretHash: digestSecret(secret),
    restPasswordHash: def.restPassword === undefined ? undefined : digestSecret(def.restPassword),
  };
  return { record, secrets, secret };
}
