import { randomBytes, randomUUID } from "node:crypto";
import type { ServiceSettings } from "../../config/settings";
import type { Account } from "../accounts/account";
import { instanceIdOf } from "../accounts/instance-id";
import { type NewAccountInput, prepareNewAccount } from "../accounts/new-account";
import { AccountConflictError, type AccountRepository } from "../accounts/ports";
import type { SecurityEventLog } from "../audit/ports";
import { REGISTRATION_EVENT } from "../audit/security-event";
import type { DynamicClientRepository } from "../clients/ports";
import { generateCode, storeCode } from "../codes/one-time-code";
import { sendConfirmationCode } from "../codes/send-code";
import { hashPassword } from "../credentials/password-hash";
import type { FieldProblem } from "../errors";
import type { HookOutput } from "../hooks/contracts";
import { HookFailedError, type HookRunner } from "../hooks/ports";
import { type Courier, MessageNotSentError } from "../messages/ports";
import { type MetricsPort, noMetrics } from "../metrics";
import type { OrganizationJoins } from "../organizations/domain-claim-ports";
import { type DomainDirectory, domainOf } from "../organizations/domain-ports";
import { checkPassword } from "../passwords/policy";
import type { BreachedPasswordCheck } from "../passwords/ports";
import { violationProblem } from "../passwords/violations";
import { openSession } from "../sessions/open-session";
import type { SessionRepository } from "../sessions/ports";
import type { PendingWrite } from "../unit-of-work";
import { registrationProblems } from "./errors";
import { type Instruction, instructionsOf } from "./instructions";
import type { ContactField, PendingContact, PendingRegistration } from "./pending";
import type { RegistrationRepository } from "./ports";

export interface RegistrationDeps {
  accounts: AccountRepository;
  registrations: RegistrationRepository;
  dynamicClients: DynamicClientRepository;
  sessions: SessionRepository;
  /** The account's creation is recorded as its first security event, in the same transaction. */
  events: Pick<SecurityEventLog, "putItem">;
  courier: Courier;
  settings: ServiceSettings;
  /** Unset: new passwords are not looked up among breached ones. */
  breachedPasswords?: BreachedPasswordCheck;
  /** The extension hooks (preRegistration, postConfirmation); unset: none. */
  hooks?: HookRunner;
  /** Counts registrations by result (pending, created, refused); unset: not counted. */
  metrics?: MetricsPort;
  /** Verified domains of policy "join": a new account with a confirmed address there joins; unset, none. */
  domainJoins?: { directory: Pick<DomainDirectory, "verifiedOwner">; joins: OrganizationJoins };
  now?: () => number;
}

/** Who registers: the application, and the user's browser as seen through it. */
export interface RegistrationCaller {
  clientId: string;
  language: "ru" | "en";
  ip?: string;
  userAgent?: string;
  /** False: no application session (interface §4.4 cookies); the hosted pages open a browser session instead. */
  sessionCookie?: boolean;
  /**
   * The hosted pages (ASVS V6 enumeration): a taken e-mail or phone is answered like a free
   * one, its owner is told by message, and no code that could confirm it is sent.
   */
  concealTaken?: boolean;
}

interface ContactInput {
  value: string;
  verified?: boolean;
}

export interface RegistrationBody {
  user: {
    attrs: {
      sub?: string;
      family_name?: string;
      given_name?: string;
      middle_name?: string;
      /** The registration field list's names for family_name and given_name (interface §2.1). */
      first_name?: string;
      name?: string;
      phone_number?: ContactInput;
      email?: ContactInput;
    };
    credentials?: { password?: string };
  };
  actions?: Array<{ type: "bindDynClient"; client_id: string }>;
}

/** The interface §4.4 answer: complete (account created) or waiting for codes. */
export interface RegistrationResponse {
  instanceId?: string;
  subject?: string;
  context: string;
  cookies?: Array<{ name: string; value: string }>;
  instructions: Instruction[];
}

/** Pending registrations live a day past their codes, so resends stay possible. */
const PENDING_SECONDS = 86_400;
/** Codes sent per contact, first one included (resends are capped to stop SMS pumping). */
export const MAX_CODES_PER_CONTACT = 5;
/** Registration-attempt notices one address is sent per hour, whatever the registration. */
export const MAX_NOTICES_PER_ADDRESS_PER_HOUR = 5;

const CHANNEL: Record<ContactField, "sms" | "email"> = { phone_number: "sms", email: "email" };

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A guard on a flow item (the pending registration) refused the account's creation. */
export class FlowRefusedError extends Error {
  constructor() {
    super("the registration changed while this request ran");
    this.name = "FlowRefusedError";
  }
}

function newContext(): string {
  return randomBytes(24).toString("base64url");
}

function newAccountInput(body: RegistrationBody): NewAccountInput {
  const attrs = body.user.attrs;
  return {
    sub: attrs.sub,
    family_name: attrs.family_name ?? attrs.first_name,
    given_name: attrs.given_name ?? attrs.name,
    middle_name: attrs.middle_name,
    phone_number: attrs.phone_number,
    email: attrs.email,
  };
}

function unconfirmedOf(account: Account): ContactField[] {
  return (["phone_number", "email"] as const).filter((f) => account[f] && !account[f]?.verified);
}

async function validate(body: RegistrationBody, deps: RegistrationDeps, now: number) {
  const attrs = body.user.attrs;
  const input = newAccountInput(body);
  const prepared = prepareNewAccount(input, now, randomUUID);
  const problems: FieldProblem[] = "problems" in prepared ? prepared.problems : [];
  const password = body.user.credentials?.password;
  if (password !== undefined) {
    // Checked even when other fields are wrong, so one answer lists every problem.
    const account = "account" in prepared ? prepared.account : undefined;
    const violations = await checkPassword(password, deps.settings.passwordPolicy, {
      identity: { sub: attrs.sub, email: account?.email?.value, phone: account?.phone_number?.value },
      breachedPasswords: deps.breachedPasswords,
    });
    // Each carries its rule in params, so the hosted page can word it without checking again.
    problems.push(...violations.map((v) => violationProblem(v)));
  }
  const binds = (body.actions ?? []).filter((a) => a.type === "bindDynClient");
  if (binds.length > 1)
    problems.push({ error: "wrong_value", pos: "actions", desc: "at most one bindDynClient action" });
  if (problems.length > 0 || !("account" in prepared)) throw registrationProblems.invalid(problems);
  return { account: prepared.account, password, dynamicClientId: binds[0]?.client_id };
}

/** interface §4.4: register an account, at once or after its contacts are confirmed. */
export async function register(
  body: RegistrationBody,
  caller: RegistrationCaller,
  deps: RegistrationDeps,
): Promise<RegistrationResponse> {
  const now = (deps.now ?? nowSeconds)();
  const { account: checked, password, dynamicClientId } = await validate(body, deps, now);
  const account = await preRegistration(checked, caller, deps);
  const unconfirmed = unconfirmedOf(account);
  const context = newContext();

  let taken: ContactField[] = [];
  if (unconfirmed.length > 0) {
    // Collisions are reported before any code leaves, so nobody is sent a useless code.
    const check = await deps.registrations.check(
      account.sub,
      account.email?.value,
      account.phone_number?.value,
      dynamicClientId,
    );
    taken = unconfirmed.filter((field) => check.used.includes(field));
    const concealed = caller.concealTaken && taken.length === check.used.length;
    if (check.used.length > 0 && !concealed) throw registrationProblems.alreadyUsed(check.used);
    if (check.dynamicClient && check.dynamicClient !== "free")
      throw registrationProblems.dynamicClient(check.dynamicClient);
  }

  // The hash (half a second of a worker thread) runs while the codes go out: it stores
  // nothing, so a failed send still leaves nothing behind.
  const hashing = password === undefined ? undefined : hashPassword(password);
  // Handled here too, so a hash failing while the codes are sent is not an unhandled rejection.
  hashing?.catch(() => undefined);
  // Codes go out before anything is stored: a failed send leaves nothing behind.
  const contacts: PendingRegistration["contacts"] = {};
  try {
    for (const field of unconfirmed) {
      const to = { field, value: account[field]?.value as string, taken: taken.includes(field) };
      contacts[field] = await sendToContact(to, caller.language, deps, now);
    }
  } catch (error) {
    // No hash left running past the answer (a frozen Lambda would finish it in the next request's time).
    await hashing?.catch(() => undefined);
    throw error;
  }
  const passwordHash = await hashing;
  const pending: PendingRegistration = {
    context,
    account,
    passwordHash,
    contacts,
    dynamicClientId,
    // A registration with a taken value never completes: it waits, like any other, for a code that never comes.
    accountCreated: unconfirmed.length === 0 || (deps.settings.registration.createBeforeConfirm && taken.length === 0),
    clientId: caller.clientId,
    createdAt: now,
    expiresAt: now + PENDING_SECONDS,
  };

  if (!pending.accountCreated) {
    await deps.registrations.save(pending);
    (deps.metrics ?? noMetrics).count("Registration", { result: "pending" });
    return { context, instructions: instructionsOf(pending, deps.settings.codes.attempts, now) };
  }
  const extra = unconfirmed.length > 0 ? [deps.registrations.putItem(pending)] : [];
  const cookies = await createAccount(pending, account, caller, deps, now, extra);
  if (unconfirmed.length === 0) await registrationConfirmed(pending.clientId, account, deps);
  return {
    instanceId: instanceIdOf(account.sub),
    subject: account.sub,
    context,
    cookies,
    instructions: instructionsOf(pending, deps.settings.codes.attempts, now),
  };
}

/**
 * The preRegistration hook, before anything is sent or stored: it may refuse, or vouch for
 * contacts (stored as confirmed, no code sent). No answer at all fails closed.
 */
async function preRegistration(
  account: Account,
  caller: RegistrationCaller,
  { hooks, metrics = noMetrics }: Pick<RegistrationDeps, "hooks" | "metrics">,
) {
  const contact = (c: Account["email"]) => c && { value: c.value, verified: c.verified };
  let answer: HookOutput<"preRegistration"> | undefined;
  try {
    answer = await hooks?.call("preRegistration", {
      clientId: caller.clientId,
      language: caller.language,
      ...(caller.ip && { ip: caller.ip }),
      ...(caller.userAgent && { userAgent: caller.userAgent }),
      user: {
        sub: account.sub,
        ...(account.email && { email: contact(account.email) }),
        ...(account.phone_number && { phone_number: contact(account.phone_number) }),
        ...(account.family_name && { family_name: account.family_name }),
        ...(account.given_name && { given_name: account.given_name }),
        ...(account.middle_name && { middle_name: account.middle_name }),
      },
    });
  } catch (error) {
    if (error instanceof HookFailedError) throw registrationProblems.hookFailed();
    throw error;
  }
  if (!answer) return account;
  if (answer.action === "deny") {
    metrics.count("Registration", { result: "refused" });
    throw registrationProblems.refused(answer.message ?? "the registration was refused");
  }
  const confirmed = { ...account };
  for (const field of ["email", "phone_number"] as const) {
    const held = confirmed[field];
    if (answer.confirm?.[field] && held) confirmed[field] = { ...held, verified: true };
  }
  return confirmed;
}

/**
 * The postConfirmation hook: the account exists with every contact confirmed. Told after the
 * commit and never undoes it; a failure is retried behind the answer (docs/hooks.md).
 */
export async function registrationConfirmed(clientId: string, account: Account, deps: RegistrationDeps) {
  const contact = (c: Account["email"]) => c && { value: c.value, verified: true };
  await deps.hooks?.notify("postConfirmation", {
    clientId,
    sub: account.sub,
    ...(account.email && { email: contact(account.email) }),
    ...(account.phone_number && { phone_number: contact(account.phone_number) }),
  });
}

/**
 * A contact's message: its code; or, for a value another account holds (hosted pages), a
 * notice to its owner that someone registered with it, within the address's hourly cap, while
 * the contact waits on a code that was never sent. A failed send fails alike either way, so
 * the answer for a taken value is the one for a free value.
 */
export async function sendToContact(
  to: { field: ContactField; value: string; taken?: boolean },
  language: "ru" | "en",
  deps: RegistrationDeps,
  now: number,
  sentBefore = 0,
): Promise<PendingContact> {
  const { field, value } = to;
  const codes = deps.settings.codes;
  try {
    if (!to.taken) {
      const stored = await sendConfirmationCode(deps.courier, codes, to, "registration", language, now);
      return { value, confirmed: false, sent: sentBefore + 1, ...stored };
    }
    if (await deps.registrations.takeNotice(field, value, now, MAX_NOTICES_PER_ADDRESS_PER_HOUR)) {
      const contact = field === "email" ? "email" : "phone";
      await deps.courier.send(CHANNEL[field], value, "registration-attempt", { contact }, language);
    }
    const neverSent = storeCode(generateCode(codes.length), codes.ttlSeconds, codes.attempts, now);
    return { value, confirmed: false, sent: sentBefore + 1, taken: true, ...neverSent };
  } catch (error) {
    if (error instanceof MessageNotSentError) throw registrationProblems.notSent(field, CHANNEL[field]);
    throw error;
  }
}

/**
 * Policy "join" (docs/organizations.md#verified-domains): an account created with a confirmed
 * address of a domain an organization verified joins it, with no roles, in the account's own
 * transaction. The account is new, so its membership cannot exist yet.
 */
async function domainJoinItems(account: Account, deps: RegistrationDeps, now: number): Promise<PendingWrite[]> {
  const email = account.email;
  const domain = email?.verified ? domainOf(email.value) : undefined;
  if (!deps.domainJoins || !domain) return [];
  const owner = await deps.domainJoins.directory.verifiedOwner(domain);
  return owner?.policy === "join" ? deps.domainJoins.joins.joinItems(owner.orgId, account.sub, now) : [];
}

/**
 * Creates the account with everything that comes with it (session, dynamic client,
 * and any flow items such as the pending registration's put or delete) in one
 * transaction; returns the session cookie.
 */
export async function createAccount(
  pending: PendingRegistration,
  account: Account,
  caller: Pick<RegistrationCaller, "clientId" | "ip" | "userAgent" | "sessionCookie">,
  deps: RegistrationDeps,
  now: number,
  flowItems: PendingWrite[],
) {
  const session = openSession({
    sub: account.sub,
    clientId: caller.clientId,
    ip: caller.ip,
    userAgent: caller.userAgent,
    now,
    ttlSeconds: deps.settings.tokens.refreshTtlSeconds,
  });
  const withSession = caller.sessionCookie !== false;
  const created = deps.events.putItem({
    sbj: account.sub,
    ts: now * 1000,
    type: REGISTRATION_EVENT,
    cId: caller.clientId,
    ip: caller.ip,
    ua: caller.userAgent,
    ...(withSession && { sid: session.record.sid }),
    result: "ok",
  });
  const extra: PendingWrite[] = [
    ...flowItems,
    created,
    ...(withSession ? [deps.sessions.putItem(session.record)] : []),
  ];
  extra.push(...(await domainJoinItems(account, deps, now)));
  const bindIndex = pending.dynamicClientId ? extra.length : -1;
  if (pending.dynamicClientId) extra.push(deps.dynamicClients.bindItem(pending.dynamicClientId, account.sub, now));
  try {
    await deps.accounts.createWith(account, pending.passwordHash, extra, (failed) =>
      failed.includes(bindIndex) ? registrationProblems.dynamicClient("unavailable") : new FlowRefusedError(),
    );
  } catch (error) {
    if (error instanceof AccountConflictError) throw registrationProblems.alreadyUsed(error.fields);
    throw error;
  }
  (deps.metrics ?? noMetrics).count("Registration", { result: "created" });
  return withSession ? [session.cookie] : [];
}
