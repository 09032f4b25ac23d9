import type { FederationProviderConfig } from "../../config/settings";
import type { SecurityEventLog } from "../audit/ports";
import { type BindDeps, type BindStart, startOwnBind } from "../federation/bind";
import { listLinks, unlinkAccount } from "../federation/links";
import type { FederationRepository } from "../federation/ports";
import { splitFp } from "../federation/providers";
import type { FederatedLink } from "../federation/records";
import { HOSTED_CLIENT } from "../oidc/browser-session";
import type { ConsoleActor } from "./sign-in-methods";

export interface LinkedAccountsDeps extends Pick<BindDeps, "stateKey"> {
  providers: readonly FederationProviderConfig[];
  federation: Pick<FederationRepository, "listLinks" | "linksOfAccount" | "unlink" | "saveState">;
  events: Pick<SecurityEventLog, "record">;
}

/** Where a bind started from the console goes and comes back, as its route knows them. */
export type ConsoleBindTarget = Pick<BindStart, "callback" | "redirectUri" | "stateTtlSeconds">;

/**
 * The account console's linked accounts (docs/account.md): the accounts at external
 * providers linked to this one, unlinking one, and linking one more through the bind flow
 * (interface §4.9), which comes back to the console. Each change records the security event
 * the management API's route records (federation.unlink, federation.bind).
 */
export function linkedAccountsUseCases(deps: LinkedAccountsDeps) {
  const recorded = (sub: string, actor: ConsoleActor, type: string, fp: string) =>
    deps.events.record({ ...actor, sbj: sub, type, result: "ok", prms: { fp } });
  return {
    /** The links, and the configured providers not linked yet. */
    async view(sub: string): Promise<{ links: FederatedLink[]; unlinked: { fp: string; name: string }[] }> {
      const links = await listLinks(deps.federation, sub, true);
      const unlinked = deps.providers
        .filter((p) => !links.some((l) => l.fpType === p.type && l.fpName === p.name))
        .map((p) => ({ fp: `${p.type}:${p.name}`, name: p.name }));
      return { links, unlinked };
    },

    /** Works for providers no longer configured too; another account's link is unknown here (404 unknown_link). */
    async unlink(sub: string, link: Omit<FederatedLink, "userName">, actor: ConsoleActor): Promise<void> {
      await unlinkAccount(deps.federation, { sub, ...link });
      await recorded(sub, actor, "federation.unlink", `${link.fpType}:${link.fpName}`);
    },

    /** Where this browser goes to sign in at the provider `fp` (`<type>:<name>`, configured); it comes back to `target.callback`. */
    async startLink(sub: string, fp: string, target: ConsoleBindTarget, actor: ConsoleActor, now: number) {
      const { fpType, fpName } = splitFp(fp);
      const url = await startOwnBind(deps, { sub, clientId: HOSTED_CLIENT, fpType, fpName, ...target }, now);
      await recorded(sub, actor, "federation.bind", fp);
      return url;
    },
  };
}

export type LinkedAccountsUseCases = ReturnType<typeof linkedAccountsUseCases>;
