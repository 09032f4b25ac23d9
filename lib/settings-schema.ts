import { BRAND_COLORS } from "./config/settings";
import { HOOK_NAMES, type HookName } from "./domain/hooks/contracts";
/**
 * The schema of the operator's settings (SVC_CONFIG, docs/configuration.md). Its validator is compiled
 * ahead of time into lib/compiled/settings-validator.ts (npm run compile-schemas), so a
 * cold start neither bundles nor runs a schema compiler.
 */

/** A provider's type or name: letters, digits and "-" (no "_": it separates them in fed_tkn_<type>_<name>). */
export const PROVIDER_PART_PATTERN = "^[A-Za-z0-9-]{1,64}$";

/** One hook: where it runs, and how long it may take. */
const HOOK_SETTING = {
  type: "object",
  additionalProperties: false,
  required: ["target"],
  properties: {
    target: { type: "string", minLength: 1, maxLength: 1024 },
    // API Gateway gives a request 30 s in all; a hook must leave the flow time to finish.
    timeoutMs: { type: "integer", minimum: 10, maximum: 25000 },
  },
} as const;

/** Hex colours only (#rgb, #rrggbb): a colour is written into CSS, where anything else could inject rules. */
export const HEX_COLOR_PATTERN = "^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$";

/** One check for every colour name, not one per name: the validator is in every function's bundle. */
const BRAND_COLORS_SETTING = {
  type: "object",
  propertyNames: { enum: BRAND_COLORS },
  additionalProperties: { type: "string", pattern: HEX_COLOR_PATTERN },
} as const;

/**
 * What a client may override of the look, checked by one function for the operator's and each
 * client's ($ref). The logo is a data: URL of an image (the pages' CSP admits images from data:
 * and our origin only); on AWS the whole file is at most 3,072 bytes.
 */
const CLIENT_BRANDING = {
  productName: { type: "string", minLength: 1, maxLength: 64 },
  logo: {
    type: "string",
    maxLength: 3072,
    pattern: "^data:image/(png|gif|jpeg|webp|svg\\+xml)(;base64,[A-Za-z0-9+/]+=*|,[A-Za-z0-9%._~!$&()*+,;=:@/?-]+)$",
  },
  colors: { $ref: "#/definitions/colors" },
  darkColors: { $ref: "#/definitions/colors" },
} as const;

export const settingsSchema = {
  type: "object",
  additionalProperties: false,
  definitions: {
    colors: BRAND_COLORS_SETTING,
    clientBranding: { type: "object", additionalProperties: false, properties: CLIENT_BRANDING },
  },
  properties: {
    passwordPolicy: {
      type: "object",
      additionalProperties: false,
      properties: {
        minLength: { type: "integer", minimum: 1 },
        maxLength: { type: "integer", minimum: 64 },
        groups: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["desc", "chars", "min"],
            properties: {
              desc: { type: "string" },
              chars: { type: "string", minLength: 1 },
              min: { type: "integer", minimum: 1 },
            },
          },
        },
        historyDepth: { type: "integer", minimum: 0 },
        minNewChars: { type: "integer", minimum: 0 },
        stopWords: { type: "array", items: { type: "string", minLength: 1 } },
        dictionary: { type: "boolean" },
        minAgeSeconds: { type: "integer", minimum: 0 },
        // The URL's scheme and host are checked in lib/config/validation.ts, as the providers' are.
        breachedPasswords: {
          type: "object",
          additionalProperties: false,
          required: ["rangeUrl"],
          properties: {
            rangeUrl: { type: "string", minLength: 1 },
            timeoutMs: { type: "integer", minimum: 100, maximum: 10000 },
          },
        },
      },
    },
    codes: {
      type: "object",
      additionalProperties: false,
      properties: {
        length: { type: "integer", minimum: 4, maximum: 10 },
        ttlSeconds: { type: "integer", minimum: 30 },
        attempts: { type: "integer", minimum: 1, maximum: 10 },
      },
    },
    secondFactor: {
      type: "object",
      additionalProperties: false,
      properties: { emailCodes: { type: "boolean" }, smsCodes: { type: "boolean" } },
    },
    registration: {
      type: "object",
      additionalProperties: false,
      properties: { createBeforeConfirm: { type: "boolean" } },
    },
    tokens: {
      type: "object",
      additionalProperties: false,
      properties: {
        accessTtlSeconds: { type: "integer", minimum: 60, maximum: 86400 },
        refreshTtlSeconds: { type: "integer", minimum: 60 },
        keyRotationDays: { type: "integer", minimum: 0, maximum: 365 },
        dpopNonces: { type: "boolean" },
      },
    },
    fedToken: {
      type: "object",
      additionalProperties: false,
      properties: { minLifetimeSeconds: { type: "integer", minimum: 0 } },
    },
    inactivity: {
      type: "object",
      additionalProperties: false,
      properties: { lockAfterDays: { type: "integer", minimum: 0 } },
    },
    // Days an account its owner deleted waits, locked, for the daily job (docs/account/data.md); 0: at once.
    accountDeletion: {
      type: "object",
      additionalProperties: false,
      properties: { graceDays: { type: "integer", minimum: 0, maximum: 365 } },
    },
    defaultLanguage: { enum: ["ru", "en"] },
    search: {
      type: "object",
      additionalProperties: false,
      properties: {
        // What user search can find accounts by without scanning (lib/domain/search/users.ts).
        indexedAttributes: {
          type: "array",
          uniqueItems: true,
          items: { enum: ["sub", "email", "phone_number", "family_name", "given_name", "middle_name"] },
        },
      },
    },
    audit: {
      type: "object",
      additionalProperties: false,
      properties: {
        retentionDays: { type: "integer", minimum: 1, maximum: 3650 },
        // 0: published identity events are not kept (the console's event stream stays empty).
        identityEventDays: { type: "integer", minimum: 0, maximum: 90 },
      },
    },
    clients: {
      type: "object",
      additionalProperties: false,
      properties: { cacheSeconds: { type: "integer", minimum: 0, maximum: 300 } },
    },
    // OAuth dynamic client registration (RFC 7591, docs/sign-in.md); off by default.
    clientRegistration: {
      type: "object",
      additionalProperties: false,
      properties: {
        mode: { enum: ["off", "token", "open"] },
        scopes: { type: "array", uniqueItems: true, items: { type: "string", pattern: "^[A-Za-z0-9_-]{1,128}$" } },
        unusedDays: { type: "integer", minimum: 1, maximum: 3650 },
        perAddressPerHour: { type: "integer", minimum: 1, maximum: 10000 },
        metadataDocuments: { type: "boolean" },
      },
    },
    federation: {
      type: "object",
      additionalProperties: false,
      properties: {
        providers: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["type", "name", "authorizeUrl", "tokenUrl", "clientId", "clientSecret"],
            properties: {
              type: { type: "string", pattern: PROVIDER_PART_PATTERN },
              name: { type: "string", pattern: PROVIDER_PART_PATTERN },
              authorizeUrl: { type: "string" },
              tokenUrl: { type: "string" },
              userinfoUrl: { type: "string" },
              clientId: { type: "string", minLength: 1 },
              clientSecret: { type: "string", minLength: 1 },
              rememberTokens: { type: "boolean" },
              scope: { type: "string", minLength: 1 },
            },
          },
        },
        callbackUrl: { type: "string" },
        stateTtlSeconds: { type: "integer", minimum: 60, maximum: 3600 },
      },
    },
    cors: {
      type: "object",
      additionalProperties: false,
      properties: {
        // Exact origins, or "*" alone; lib/config/validation.ts checks their form (lib/http/cors.ts).
        allowedOrigins: { type: "array", uniqueItems: true, items: { type: "string", minLength: 1 } },
      },
    },
    // Extension hooks (docs/hooks.md): the target's form is checked in lib/config/validation.ts.
    hooks: {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(HOOK_NAMES.map((name) => [name, HOOK_SETTING])) as Record<
        HookName,
        typeof HOOK_SETTING
      >,
    },
    passkeys: {
      type: "object",
      additionalProperties: false,
      properties: {
        // A domain, never an IP address or a URL (WebAuthn RP ID); lib/config/validation.ts checks it.
        rpId: { type: "string", minLength: 1, maxLength: 253 },
        rpName: { type: "string", minLength: 1, maxLength: 64 },
        origins: { type: "array", uniqueItems: true, items: { type: "string", minLength: 1 } },
      },
    },
    // The hosted pages' look (docs/configuration.md#branding); colour contrast is checked in lib/config/validation.ts.
    branding: {
      type: "object",
      additionalProperties: false,
      properties: {
        ...CLIENT_BRANDING,
        // Served as text/css by us: the CSP keeps it from loading anything but our files and data: images.
        stylesheet: { type: "string", maxLength: 16384 },
        clients: {
          type: "object",
          propertyNames: { minLength: 1, maxLength: 512 },
          additionalProperties: { $ref: "#/definitions/clientBranding" },
        },
      },
    },
    // Verified domains' TXT lookups (docs/organizations.md#verified-domains); lib/config/validation.ts checks the values.
    organizations: {
      type: "object",
      additionalProperties: false,
      properties: { dnsResolvers: { type: "array", items: { type: "string" } }, dnsTimeoutMs: { type: "integer" } },
    },
    // Organization invitations (docs/organizations.md#invitations): a link's life in days.
    invitations: {
      type: "object",
      additionalProperties: false,
      properties: { ttlDays: { type: "integer", minimum: 1, maximum: 90 } },
    },
  },
} as const;
