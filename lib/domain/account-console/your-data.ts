import type { AccountData, AccountDataRepository } from "../accounts/data-ports";
import { type AccountDeletionDeps, requestAccountDeletion } from "../accounts/deletion";
import { problems } from "../errors";
import type { ConsoleActor } from "./sign-in-methods";

/**
 * The account console's "Your data" (docs/account/data.md): everything the service holds
 * about the account as one JSON document, and the account's deletion. The document is
 * built from named fields only, so a secret a record gains later (a digest, a sealed
 * token) stays out: no password hash, TOTP secret, code digest, session or refresh token
 * digest, security answer or stored external token ever leaves.
 */

export interface YourDataDeps {
  data: Pick<AccountDataRepository, "read">;
  deletion: AccountDeletionDeps;
  /** audit.retentionDays: events are kept this long, and the export says so. */
  retentionDays: number;
}

/** Drops undefined members, so absent fields print nothing. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const iso = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(seconds * 1000).toISOString();
const isoMs = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The export: one JSON document, dates as ISO 8601 text. */
export function accountDocument(data: AccountData, nowMs: number, retentionDays: number) {
  const { account } = data;
  const oldest = nowMs - retentionDays * 86_400_000;
  const pending = (["email", "phone_number"] as const).flatMap((field) => {
    const change = account[field === "email" ? "pending_email" : "pending_phone_number"];
    return change ? [{ field, value: change.value, expiresAt: iso(change.exp) }] : [];
  });
  return {
    exportedAt: isoMs(nowMs),
    account: compact({
      sub: account.sub,
      family_name: account.family_name,
      given_name: account.given_name,
      middle_name: account.middle_name,
      email: account.email && { value: account.email.value, verified: account.email.verified },
      phone_number: account.phone_number && {
        value: account.phone_number.value,
        verified: account.phone_number.verified,
      },
      pendingContactChanges: pending.length > 0 ? pending : undefined,
      locked: account.locked,
      state: account.state && compact({ ...account.state }),
      requiredFactor: account.requiredFactor,
      needPasswordChange: account.needPasswordChange,
      methodsLocked: account.methodsLocked,
      deletionScheduledAt: iso(account.deletionScheduledAt),
      createdAt: iso(account.createdAt),
      updatedAt: iso(account.updatedAt),
      lastLoginAt: iso(account.lastLoginAt),
    }),
    properties: data.props,
    devices: data.devices.map((d) =>
      compact({
        id: d.id,
        name: d.name,
        browser: d.tp,
        os: d.os,
        deviceType: d.deviceType,
        device: d.device || undefined,
        userAgent: d.userAgent,
        latestIp: d.latestIp,
        trusted: d.trusted,
        createdAt: iso(d.createdAt),
        lastUsed: iso(d.lastUsed),
      }),
    ),
    sessions: data.sessions.map((s) =>
      compact({
        application: s.clientId,
        device: s.uaId,
        ip: s.ip,
        userAgent: s.userAgent,
        scopes: s.scopes,
        audience: s.audience,
        signInMethods: s.amr,
        signedInAt: iso(s.authTime),
        createdAt: iso(s.createdAt),
        lastUsedAt: iso(s.lastUsedAt),
        expiresAt: iso(s.expiresAt),
      }),
    ),
    consents: data.consents.map((c) => ({ application: c.client_id, scopes: c.scopes, updatedAt: isoMs(c.updated) })),
    linkedAccounts: data.links.map((l) =>
      compact({
        provider: `${l.fpType}:${l.fpName}`,
        externalId: l.sid,
        userName: l.userName,
        linkedAt: iso(l.linkedAt),
      }),
    ),
    passkeys: data.passkeys.map((p) =>
      compact({
        id: p.id,
        name: p.name,
        createdAt: iso(p.createdAt),
        lastUsed: iso(p.lastUsed),
        syncedToOtherDevices: p.backedUp,
        transports: p.transports,
        authenticatorModel: p.aaguid,
      }),
    ),
    authenticatorApps: data.totps.map((t) => ({ id: t.id, name: t.name, digits: t.digits })),
    recoveryCodes: data.recoveryCodes
      ? { remaining: data.recoveryCodes.remaining, createdAt: iso(data.recoveryCodes.createdAt) }
      : { remaining: 0 },
    securityQuestion: data.securityQuestion ? { question: data.securityQuestion.question } : null,
    groups: data.groups.map((g) => ({ profile: g.profile, id: g.id, addedAt: iso(g.addedAt) })),
    rights: data.rightsHeld.map((r) => ({ object: r.object, right: r.right, tags: r.tags })),
    rightsOverYou: data.rightsOver.map((r) => ({ subject: r.subject, right: r.right })),
    securityEvents: {
      retentionDays,
      events: data.events
        .filter((e) => e.ts >= oldest)
        .map((e) =>
          compact({
            at: isoMs(e.ts),
            type: e.type,
            result: e.result,
            application: e.cId,
            ip: e.ip,
            userAgent: e.ua,
            details: e.prms,
          }),
        ),
    },
  };
}

export type AccountDocument = ReturnType<typeof accountDocument>;

export function yourDataUseCases(deps: YourDataDeps) {
  return {
    /** What the section says about deleting: at once, or after how many days. */
    graceDays: () => Math.max(0, deps.deletion.graceDays),

    /** Everything held about the account, as its owner downloads it. */
    async export(sub: string, nowMs: number): Promise<AccountDocument> {
      const data = await deps.data.read(sub);
      if (!data) throw problems.unknownUser(sub);
      return accountDocument(data, nowMs, deps.retentionDays);
    },

    /** Deletes the account now, or locks it and marks it for the daily job (accountDeletion.graceDays). */
    deleteAccount: (sub: string, actor: ConsoleActor, now: number) =>
      requestAccountDeletion(deps.deletion, sub, actor, now),
  };
}

export type YourDataUseCases = ReturnType<typeof yourDataUseCases>;
