import { accountConsoleClient, CONSOLE_MARK } from "../account-console/console-client";
import type { SecurityEventLog } from "../audit/ports";
import { type ClientRecord, redirectSchemeAllowed } from "../clients/client";
import type { ClientCredentialSource } from "../clients/credential-cache";
import type { ClientRepository } from "../clients/ports";
import { OAuthError } from "../errors";
import type { GroupRepository } from "../groups/ports";
import type { LoginRepository } from "../login/ports";
import type { DeviceAuthorizationRepository, PushedAuthorizationRepository } from "../oauth/ports";
import { isPushedRequestUri, PUSHED_MARK, requestedResource, takePushedRequest } from "../oauth/pushed-authorization";
import { normalizeUserCode, USER_CODE_TRIES_PER_HOUR } from "../oauth/user-codes";
import {
  type AuthorizationError,
  type AuthorizationRequest,
  parseAuthorizationRequest,
  type ResponseMode,
  redirectWith,
  refusalOf,
  UntrustedRedirectError,
} from "../oidc/authorization-request";
import { HOSTED_CLIENT, type LiveBrowserSession, liveBrowserSession } from "../oidc/browser-session";
import { issueCode, signInOf } from "../oidc/code-grant";
import {
  ORGANIZATION_SCOPE,
  type OrganizationChoice,
  type OrganizationRoles,
  organizationsOf,
} from "../oidc/organization";
import type { AuthorizationCodeRepository } from "../oidc/ports";
import { admitOperator, isConsoleClient, provedSecondFactor } from "../operators/operator";
import { type Acceptance, INVITATION_MARK, type InvitationLinkUseCases } from "../organizations/invitations";
import type { ResourceRepository } from "../resources/ports";
import { consentScope, type ResourceScope } from "../resources/resource";
import { targetOf } from "../resources/target";
import type { RightRepository } from "../rights/ports";
import type { ConsentRepository, SessionRepository } from "../sessions/ports";

/**
 * The authorization endpoint's side of the hosted pages (docs/sign-in.md): the request a
 * form carries, the browser session, consent, the code, and logout.
 */

export interface AuthorizationDeps {
  clientCredentials: ClientCredentialSource;
  clients: Pick<ClientRepository, "get">;
  sessions: SessionRepository;
  consents: ConsentRepository;
  codes: AuthorizationCodeRepository;
  logins: Pick<LoginRepository, "commit">;
  events: Pick<SecurityEventLog, "record" | "putItem">;
  resources: Pick<ResourceRepository, "get">;
  /** The management API's resource identifier (the issuer): `resource` naming it asks for no other audience. */
  ownResource: string;
  devices: Pick<DeviceAuthorizationRepository, "get" | "decide" | "admitTry">;
  /** Pushed authorization requests (RFC 9126): the authorization endpoint takes each once. */
  pushedRequests: Pick<PushedAuthorizationRepository, "take">;
  /** The hosted device page (RFC 8628 verification_uri): where the user's answer to a device lands. */
  deviceUri: string;
  /** The admin console's operators hold their authority as rights over it (lib/domain/operators). */
  rights: Pick<RightRepository, "readGrants">;
  /** Organization members' roles: a request naming an organization is for its members only. */
  organizationRoles: OrganizationRoles;
  /** An account's organizations for the picker (scope organization): its memberships of profile org. */
  groups: Pick<GroupRepository, "membershipsOf" | "groups">;
  /** The account console: where a sign-in started from it goes back to. */
  consoleUri: string;
  /** Organization invitations: a sign-in started from a link accepts it (docs/organizations.md#invitations). */
  invitations: Pick<InvitationLinkUseCases, "accept">;
  /** The `sub` and first audience of an ID token this issuer signed, whatever its age; undefined otherwise. */
  idTokenHint: (token: string) => Promise<{ sub: string; aud: string } | undefined>;
}

/** A request checked against its client's record as it is now. */
export interface FoundRequest {
  client: ClientRecord;
  request: AuthorizationRequest;
  /** The parameters the interaction carries on: a pushed request's own, never its request_uri again. */
  query: Record<string, string | undefined>;
}

/** Where the browser goes once signed in: the consent page, or back to the client with a code or an error. */
export type AfterSignIn =
  | { kind: "consent"; clientId: string; scopes: string[]; asker: ConsentAsker; resource?: ConsentResource }
  | { kind: "back"; redirectUri: string; responseMode: ResponseMode; params: Record<string, string | undefined> }
  | { kind: "error"; error: AuthorizationError }
  /** The request asked for scope `organization` and named none: the user picks one of these. */
  | { kind: "organization"; choices: OrganizationChoice[] }
  /** A sign-in started from an invitation's link: how accepting it ended. */
  | { kind: "invitation"; acceptance: Acceptance };

/** Organizations offered on the picker page at most; more would need a search there. */
const ORGANIZATION_CHOICES = 100;

/**
 * Who the consent page says is asking. A client that registered itself (RFC 7591) names
 * itself, so the page adds the host the browser will return to, which it cannot choose freely.
 */
export interface ConsentAsker {
  name: string;
  /** Set for a registered client: the host of the redirect URI of this request. */
  host?: string;
}

/** A registered resource the request is for: the page names it and says what each of its scopes allows. */
export interface ConsentResource {
  name: string;
  host: string;
  scopes: ResourceScope[];
}

function resourceOf({ target, scopes }: AuthorizationRequest): ConsentResource | undefined {
  if (target.kind !== "registered") return undefined;
  const { name, uri, scopes: defined } = target.resource;
  return { name, host: new URL(uri).host, scopes: defined.filter((s) => scopes.includes(s.name)) };
}

/** The scopes as a consent keeps them: a resource's own carry its URI. */
const consentScopes = (request: AuthorizationRequest) => request.scopes.map((s) => consentScope(s, request.resource));

function askerOf(client: ClientRecord, request: AuthorizationRequest): ConsentAsker {
  if (!client.registration) return { name: client.clientId };
  // A metadata document's host vouches for it by https; a registered client's redirect host is where the code goes.
  const where = client.registration.via === "document" ? client.clientId : request.redirectUri;
  return { name: client.registration.clientName ?? client.clientId, host: new URL(where).host };
}

const answerTo = ({ redirectUri, responseMode }: AuthorizationRequest) => ({ redirectUri, responseMode });

/** Who acts, for the events. */
export interface Actor {
  ip?: string;
  userAgent?: string;
}

export type AuthorizationUseCases = ReturnType<typeof authorizationUseCases>;

const epochSeconds = () => Math.floor(Date.now() / 1000);

export function authorizationUseCases(deps: AuthorizationDeps) {
  const hinted = (token: string | undefined) => (token ? deps.idTokenHint(token) : Promise.resolve(undefined));

  /**
   * First-party clients, and scopes the user granted the client before, need no consent screen.
   * A device always asks (RFC 8628 5.4): the user confirms it is the device in front of them.
   */
  async function consentNeeded(client: ClientRecord, request: AuthorizationRequest, sub: string) {
    if (request.device) return true;
    if (client.firstParty) return false;
    if (request.prompt.includes("consent")) return true;
    const granted = (await deps.consents.list(sub)).find((c) => c.client_id === client.clientId);
    return !consentScopes(request).every((s) => granted?.scopes.includes(s));
  }

  /** A device authorization the user typed the code of, as a request: the device's client, scopes and resource. */
  async function deviceRequest(typed: string, uiLocales: string | undefined): Promise<Omit<FoundRequest, "query">> {
    const userCode = normalizeUserCode(typed);
    const record = userCode ? await deps.devices.get(userCode) : undefined;
    const now = Math.floor(Date.now() / 1000);
    if (!userCode || !record || record.status !== "pending" || record.expiresAt <= now)
      throw new UntrustedRedirectError("unknown_user_code");
    const client = await deps.clientCredentials.getWithSecrets(record.clientId);
    if (!client) throw new UntrustedRedirectError("unknown_client");
    const registered = record.resource ? await deps.resources.get(record.resource) : undefined;
    const request: AuthorizationRequest = {
      clientId: client.clientId,
      redirectUri: deps.deviceUri,
      scopes: record.scopes,
      prompt: [],
      uiLocales,
      resource: record.resource,
      target: targetOf(client, record.resource, registered, "user", deps.ownResource),
      responseMode: "query",
      device: { userCode },
    };
    return { client, request };
  }

  /**
   * A sign-in to the account console itself: the service is its own first-party client, so
   * no consent, no code and no token; the browser session the sign-in opens is the console's.
   */
  function consoleRequest(uiLocales: string | undefined): Omit<FoundRequest, "query"> {
    const client = accountConsoleClient(deps.consoleUri);
    const request: AuthorizationRequest = {
      clientId: client.clientId,
      redirectUri: deps.consoleUri,
      scopes: [],
      prompt: [],
      uiLocales,
      target: targetOf(client, undefined, undefined, "user", deps.ownResource),
      responseMode: "query",
      console: true,
    };
    return { client, request };
  }

  /**
   * A sign-in (or registration) started from an invitation's link: like the console's, the
   * service is its own first-party client, and the sign-in ends by accepting the invitation.
   */
  function invitationRequest(token: string, uiLocales: string | undefined): Omit<FoundRequest, "query"> {
    const { client, request } = consoleRequest(uiLocales);
    const { console: _, ...rest } = request;
    return { client, request: { ...rest, invitation: token } };
  }

  /** The user's answer to a device: recorded for its next poll; the browser goes to the device page's last word. */
  async function answerDevice(
    device: { userCode: string },
    request: AuthorizationRequest,
    browser: LiveBrowserSession,
    allow: boolean,
    now: number,
  ) {
    const approval = signInOf(browser);
    const sub = approval.sub;
    const answered = await deps.devices.decide(device.userCode, allow ? { approval } : "denied", now);
    if (answered && allow)
      await deps.logins.commit([deps.consents.grantItem(sub, request.clientId, consentScopes(request), Date.now())]);
    const done = answered ? (allow ? "approved" : "denied") : "expired";
    return { kind: "back", redirectUri: request.redirectUri, responseMode: "query", params: { done } } as const;
  }

  return {
    /** The request's parameters checked against the client; untrusted ones throw (UntrustedRedirectError). */
    async loadRequest(sent: Record<string, string | undefined>): Promise<FoundRequest> {
      // Only the device page and the forms it seals carry a user code; the authorization endpoint drops it.
      if (sent.user_code !== undefined)
        return { ...(await deviceRequest(sent.user_code, sent.ui_locales)), query: sent };
      // Only the account console's sign-in link and the forms it seals carry this mark.
      if (sent[CONSOLE_MARK] !== undefined) return { ...consoleRequest(sent.ui_locales), query: sent };
      // Only the invitation page and the forms it seals carry this mark.
      const invitation = sent[INVITATION_MARK];
      if (invitation !== undefined) return { ...invitationRequest(invitation, sent.ui_locales), query: sent };
      // A request_uri of ours stands for the whole request (RFC 9126 4): the other parameters are ignored.
      const query = isPushedRequestUri(sent.request_uri)
        ? await takePushedRequest(deps.pushedRequests, sent.request_uri, sent.client_id, epochSeconds())
        : sent;
      // The cached record client authentication uses: every sign-in page and form reads it (docs/scale.md).
      const client =
        typeof query.client_id === "string" ? await deps.clientCredentials.getWithSecrets(query.client_id) : undefined;
      // Only a resource of someone else's can be registered: one read, and only when one is named.
      const resource = client
        ? await requestedResource(deps.resources, query.resource, deps.ownResource)
        : { own: deps.ownResource };
      const request = parseAuthorizationRequest(query, client, resource);
      // Without a client the parse threw UntrustedRedirectError: here the client is known.
      const found = { client: client as ClientRecord, request, query };
      // RFC 9126 6: checked on every step, as each step reads the request again from its interaction.
      if (found.client.requirePushedAuthorizationRequests && query[PUSHED_MARK] === undefined)
        throw refusalOf(request, new OAuthError("invalid_request", "this client must push its authorization requests"));
      return found;
    },

    /** Whether `address` may try another user code on the device page this hour (RFC 8628 5.1). */
    admitUserCodeTry: (address: string, now: number) => deps.devices.admitTry(address, now, USER_CODE_TRIES_PER_HOUR),

    /** The browser session the cookie names, when it is live. */
    browserSession(cookie: string | undefined, now: number): Promise<LiveBrowserSession | undefined> {
      return liveBrowserSession(deps.sessions, cookie, now);
    },

    /** Whether the browser's session may answer this request without asking the user. */
    async usableSession(browser: LiveBrowserSession | undefined, request: AuthorizationRequest, now: number) {
      if (!browser || request.prompt.includes("login")) return false;
      // The admin console needs a second factor: a session without one signs in again, with it.
      if (isConsoleClient(request.clientId) && !provedSecondFactor(browser.session.amr)) return false;
      // max_age=0 asks for a sign-in in this very request (OIDC Core 3.1.2.1): no session, however fresh, is one.
      if (request.maxAge === 0) return false;
      const authTime = browser.session.authTime ?? browser.session.createdAt;
      if (request.maxAge !== undefined && now - authTime > request.maxAge) return false;
      const hint = await hinted(request.idTokenHint);
      return !hint || hint.sub === browser.account.sub;
    },

    /** With a signed-in browser: the consent screen when it is needed, else a code for the client. */
    async signedIn(found: FoundRequest, browser: LiveBrowserSession, now: number): Promise<AfterSignIn> {
      const { client, request } = found;
      if (request.console) return { kind: "back", redirectUri: request.redirectUri, responseMode: "query", params: {} };
      if (request.invitation !== undefined)
        return { kind: "invitation", acceptance: await deps.invitations.accept(request.invitation, browser.account) };
      if (isConsoleClient(client.clientId)) {
        try {
          await admitOperator(deps.rights, browser.account.sub, browser.session.amr);
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error;
          return { kind: "error", error: refusalOf(request, error) };
        }
      }
      if (request.organization === undefined && request.scopes.includes(ORGANIZATION_SCOPE)) {
        const choices = await organizationsOf(deps.groups, browser.account.sub, ORGANIZATION_CHOICES);
        if (choices.length > 0) return { kind: "organization", choices };
        const none = new OAuthError("access_denied", "the account is not a member of any organization");
        return { kind: "error", error: refusalOf(request, none) };
      }
      if (request.organization !== undefined) {
        const roles = await deps.organizationRoles.rolesIn(browser.account.sub, request.organization);
        if (!roles) {
          const denied = new OAuthError("access_denied", "the account is not a member of the organization");
          return { kind: "error", error: refusalOf(request, denied) };
        }
      }
      if (await consentNeeded(client, request, browser.account.sub)) {
        if (!request.prompt.includes("none"))
          return {
            kind: "consent",
            clientId: client.clientId,
            scopes: request.scopes,
            asker: askerOf(client, request),
            resource: resourceOf(request),
          };
        const error = new OAuthError("consent_required", "the user has not consented");
        return { kind: "error", error: refusalOf(request, error) };
      }
      const code = await issueCode(deps.codes, request, browser, now);
      return { kind: "back", ...answerTo(request), params: { code, state: request.state } };
    },

    /** The user's answer on the consent page: allowing records a consent (acls); either way an event. */
    async consent(
      request: AuthorizationRequest,
      browser: LiveBrowserSession,
      allow: boolean,
      actor: Actor,
      now: number,
    ): Promise<AfterSignIn> {
      const sub = browser.account.sub;
      await deps.events.record({
        sbj: sub,
        ts: Date.now(),
        type: "consent",
        cId: request.clientId,
        ip: actor.ip,
        ua: actor.userAgent,
        sid: browser.session.sid,
        result: allow ? "ok" : "denied",
        prms: { scopes: request.scopes },
      });
      if (request.device) return answerDevice(request.device, request, browser, allow, now);
      if (!allow) {
        const denied = new OAuthError("access_denied", "the user denied the request");
        return { kind: "error", error: refusalOf(request, denied) };
      }
      await deps.logins.commit([deps.consents.grantItem(sub, request.clientId, consentScopes(request), Date.now())]);
      const code = await issueCode(deps.codes, request, browser, now);
      return { kind: "back", ...answerTo(request), params: { code, state: request.state } };
    },

    /** Where the browser goes after logout: only a URI registered for the client (no open redirect). */
    async logoutTarget(query: Record<string, string>): Promise<{ uri?: string; valid: boolean; sub?: string }> {
      const hint = await hinted(query.id_token_hint);
      const clientId = hint?.aud ?? query.client_id;
      if (query.post_logout_redirect_uri === undefined) return { valid: true, sub: hint?.sub };
      const client = clientId ? await deps.clients.get(clientId) : undefined;
      // A record stored before the scheme allow-list may hold a script scheme: never follow it.
      const target = query.post_logout_redirect_uri;
      const valid = (client?.postLogoutRedirectUris.includes(target) ?? false) && redirectSchemeAllowed(target);
      const uri = valid ? redirectWith(target, { state: query.state }) : undefined;
      return { uri, valid, sub: hint?.sub };
    },

    /** Ends the browser session and every session opened from it. */
    async signOut(browser: LiveBrowserSession, actor: Actor): Promise<void> {
      const sid = browser.session.sid;
      const sub = browser.account.sub;
      await deps.sessions.endSessionsAndDevices(
        sub,
        { session: (s) => s.sid === sid || s.browserSid === sid, device: () => false },
        () => [
          deps.events.putItem({
            sbj: sub,
            ts: Date.now(),
            type: "logout",
            cId: HOSTED_CLIENT,
            ip: actor.ip,
            ua: actor.userAgent,
            sid,
            result: "ok",
          }),
        ],
      );
    },
  };
}
