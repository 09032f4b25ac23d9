import type { HookName } from "../domain/hooks/contracts";
import type { CorsSettings } from "../http/cors";

/**
 * The shapes of the configuration and the settings' defaults: pure, so the domain can name
 * its settings types without loading the settings validator (lib/config/validation.ts).
 */

export interface PasswordGroupRule {
  desc: string;
  chars: string;
  min: number;
}

/** A Pwned Passwords range API (k-anonymity): new passwords found in it are refused. */
export interface BreachedPasswordsConfig {
  /** `<rangeUrl>/<first 5 hex of the SHA-1>` answers `SUFFIX:COUNT` lines. */
  rangeUrl: string;
  /** A lookup slower than this is given up and the password judged without it. */
  timeoutMs: number;
}

export interface FederationProviderConfig {
  /** Letters, digits and "-": the two make the permission fed_tkn_<type>_<name> (interface §4.9). */
  type: string;
  name: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Where the external account id (`sub`) is read; without it, from the id_token. */
  userinfoUrl?: string;
  clientId: string;
  clientSecret: string;
  /** Keep the provider's access and refresh tokens for GET .../fedToken (interface §4.9). */
  rememberTokens: boolean;
  /** OAuth scope asked of the provider. */
  scope: string;
}

/**
 * Where a hook runs (docs/hooks.md): a Lambda function (`arn:aws:lambda:...` or `lambda:<name>`),
 * a module exporting `handler(input)` (absolute path), or a loopback HTTP URL; on Lambda, only the first.
 */
export type HookTarget =
  | { kind: "lambda"; functionName: string }
  | { kind: "module"; path: string }
  | { kind: "http"; url: string };

export interface HookSettings {
  target: HookTarget;
  timeoutMs: number;
}

/** OAuth dynamic client registration (RFC 7591, docs/configuration.md clientRegistration). */
export interface ClientRegistrationPolicy {
  /** off: nobody registers; token: with an initial access token; open: anyone, within the limits below. */
  mode: "off" | "token" | "open";
  /** User permissions a registered client may hold, besides the OpenID Connect scopes. */
  scopes: string[];
  /** A registered client unused this many days is removed. */
  unusedDays: number;
  /** Registrations without an initial access token from one address in an hour. */
  perAddressPerHour: number;
  /** Client ID Metadata Documents: a client_id that is an https URL is read from there (docs/sign-in.md). */
  metadataDocuments: boolean;
}

/** The colours of the hosted pages an operator may set (lib/pages/style.css.txt's custom properties), as hex. */
export const BRAND_COLORS = [
  "accent",
  "onAccent",
  "background",
  "card",
  "text",
  "muted",
  "line",
  "danger",
  "ok",
  "field",
] as const;
export type BrandColor = (typeof BRAND_COLORS)[number];
export type BrandColors = Partial<Record<BrandColor, string>>;

/** What one client may change of the look (docs/configuration.md#branding). */
export interface ClientBranding {
  productName?: string;
  /** A data: URL of an image: the CSP admits images from data: and our origin only. */
  logo?: string;
  /** Light scheme; dark pages keep our dark colours unless `darkColors` names them. */
  colors?: BrandColors;
  darkColors?: BrandColors;
}

/** The hosted pages' and account console's look (docs/configuration.md#branding); nothing set: our own look. */
export interface BrandingSettings extends ClientBranding {
  /** The operator's extra CSS, appended to /svc/oauth/theme.css. */
  stylesheet?: string;
  /** Overrides for the sign-in pages of one client, by client id. */
  clients: Record<string, ClientBranding>;
}

export interface ServiceSettings {
  passwordPolicy: {
    minLength: number;
    maxLength: number;
    groups: PasswordGroupRule[];
    historyDepth: number;
    minNewChars: number;
    stopWords: string[];
    dictionary: boolean;
    minAgeSeconds: number;
    /** Unset: no breached-password lookup. */
    breachedPasswords?: BreachedPasswordsConfig;
  };
  codes: { length: number; ttlSeconds: number; attempts: number };
  /** One-time codes by e-mail or SMS as a second factor at sign-in; off by default (docs/configuration.md). */
  secondFactor: { emailCodes: boolean; smsCodes: boolean };
  registration: { createBeforeConfirm: boolean };
  /** keyRotationDays: the period of the stack's scheduled signing-key rotation; 0, none. */
  tokens: {
    accessTtlSeconds: number;
    refreshTtlSeconds: number;
    keyRotationDays: number;
    /** The token endpoint asks DPoP proofs for its nonce (RFC 9449 8). */
    dpopNonces: boolean;
  };
  fedToken: { minLifetimeSeconds: number };
  inactivity: { lockAfterDays: number };
  /** Days an account its owner deleted stays locked before the daily job deletes it; 0: at once. */
  accountDeletion: { graceDays: number };
  defaultLanguage: "ru" | "en";
  search: { indexedAttributes: string[] };
  federation: {
    providers: FederationProviderConfig[];
    /** Our callback as the providers know it; unset: derived from the bind request's host. */
    callbackUrl?: string;
    /** How long a started bind may wait for the provider's answer. */
    stateTtlSeconds: number;
  };
  /**
   * Security events (interface §6) are kept `retentionDays` (TTL); the identity events the
   * stream publishes, `identityEventDays` for the admin console (0: not kept).
   */
  audit: { retentionDays: number; identityEventDays: number };
  /** How long a container keeps a client's record for client authentication (0: never). */
  clients: { cacheSeconds: number };
  clientRegistration: ClientRegistrationPolicy;
  /** Browser origins the HTTP API answers CORS for (lib/http/cors.ts); none by default. */
  cors: CorsSettings;
  /**
   * WebAuthn relying party (docs/passkeys.md). rpId: default the issuer's host; origins: web
   * origins besides the issuer's where applications enrol or use passkeys.
   */
  passkeys: { rpId?: string; rpName: string; origins: string[] };
  /** Configured extension hooks by name; none by default. */
  hooks: Partial<Record<HookName, HookSettings>>;
  branding: BrandingSettings;
  /**
   * Verified domains (docs/organizations.md#verified-domains): the DNS servers their TXT
   * records are looked up at ("ip" or "ip:port"; none: the system's), and how long a try waits.
   */
  organizations: { dnsResolvers: string[]; dnsTimeoutMs: number };
  /** Organization invitations (docs/organizations.md): how many days a link may be used. */
  invitations: { ttlDays: number };
}

/**
 * The key that encrypts data at rest outside the table (stored external tokens) and
 * signs bind states: inline from SVC_DATA_KEY (local), or a Secrets Manager secret
 * named by SVC_DATA_KEY_SECRET_ID (the CDK stack sets it).
 */
export type DataKeySource = { kind: "inline"; material: Buffer } | { kind: "secret"; secretId: string };

export interface Config {
  /** DynamoDB table (docs/architecture.md, contract: TABLE_NAME). */
  tableName: string;
  /** Set when talking to DynamoDB Local; unset on AWS. */
  dynamodbEndpoint?: string;
  dynamodbPort: number;
  /** `npm start` and local tools: how long to wait for DynamoDB Local's first answer. */
  dynamodbWaitSeconds: number;
  region: string;
  /** Local gateway port (PORT). */
  port: number;
  inMemory: boolean;
  bootstrapClient: { id?: string; secret?: string };
  outboxFile: string;
  /**
   * Where the event stream publishes (docs/events.md): the EventBridge bus named by
   * EVENT_BUS_NAME (a name or ARN; the CDK stack sets it), else the JSON-lines file
   * SVC_EVENTS_FILE (local stack).
   */
  events: { busName?: string; file: string };
  /** POWERTOOLS_METRICS_DISABLED=true: no EMF lines (the test suite, as it silences logs). */
  metricsDisabled: boolean;
  /**
   * How SMS and e-mail leave: `outbox` appends to outboxFile (local stack, docs/configuration.md),
   * `aws` sends through SNS and SES (SVC_MESSAGES; default aws on Lambda).
   */
  messages: { transport: "outbox" | "aws"; mailFrom: string };
  /** The `iss` claim of every token we sign. */
  issuer: string;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Unset when neither variable is given: features that need it answer 503 and log why. */
  dataKey?: DataKeySource;
  settings: ServiceSettings;
}

export const defaultSettings: ServiceSettings = {
  passwordPolicy: {
    minLength: 8,
    maxLength: 256,
    groups: [],
    historyDepth: 0,
    minNewChars: 0,
    stopWords: [],
    dictionary: true,
    minAgeSeconds: 0,
  },
  codes: { length: 6, ttlSeconds: 600, attempts: 3 },
  secondFactor: { emailCodes: false, smsCodes: false },
  registration: { createBeforeConfirm: false },
  tokens: { accessTtlSeconds: 3600, refreshTtlSeconds: 2592000, keyRotationDays: 30, dpopNonces: false },
  fedToken: { minLifetimeSeconds: 30 },
  inactivity: { lockAfterDays: 0 },
  accountDeletion: { graceDays: 0 },
  defaultLanguage: "ru",
  search: {
    indexedAttributes: ["sub", "email", "phone_number", "family_name", "given_name", "middle_name"],
  },
  federation: { providers: [], stateTtlSeconds: 600 },
  audit: { retentionDays: 180, identityEventDays: 7 },
  clients: { cacheSeconds: 10 },
  clientRegistration: { mode: "off", scopes: [], unusedDays: 90, perAddressPerHour: 10, metadataDocuments: false },
  cors: { allowedOrigins: [] },
  passkeys: { rpName: "svc-identity", origins: [] },
  hooks: {},
  branding: { clients: {} },
  organizations: { dnsResolvers: [], dnsTimeoutMs: 2000 },
  invitations: { ttlDays: 7 },
};

/** How long a hook may take when its entry names no timeoutMs. */
export const DEFAULT_HOOK_TIMEOUT_MS = 3000;

/** How long a breached-password lookup may take when its entry names no timeoutMs. */
export const DEFAULT_BREACHED_TIMEOUT_MS = 2000;

/** The scope asked of a provider when its entry names none. */
export const DEFAULT_PROVIDER_SCOPE = "openid";

/**
 * The WebAuthn relying party: the configured RP ID or the issuer's host, and the origins that
 * may run ceremonies (the issuer's, then the configured ones). `offered` is false while the
 * RP ID is an IP address, which browsers refuse: the hosted pages then show no passkey button.
 */
export function relyingParty(cfg: Config) {
  const issuer = URL.canParse(cfg.issuer) ? new URL(cfg.issuer) : undefined;
  const { rpId, rpName, origins } = cfg.settings.passkeys;
  const id = rpId ?? issuer?.hostname ?? "localhost";
  return {
    id,
    name: rpName,
    origins: [...new Set([...(issuer ? [issuer.origin] : []), ...origins])],
    offered: !/^[0-9.]+$|^\[/.test(id),
  };
}
