import type { FederationProviderConfig } from "../../config/settings";
import { AccountNotFoundError } from "../accounts/ports";
import { problems } from "../errors";
import { FederatedAccountTakenError, type FederationRepository } from "./ports";
import { requireProvider } from "./providers";
import type { FederatedLink } from "./records";

/** interface §4.9 links by a known external account id: list, link, unlink. */

/**
 * One Query: the links alone when the account is known (a user token's, read with its
 * session), else the links and the profile together, to tell "none" from "no account".
 */
export async function listLinks(
  federation: Pick<FederationRepository, "listLinks" | "linksOfAccount">,
  sub: string,
  knownAccount: boolean,
): Promise<FederatedLink[]> {
  if (knownAccount) return federation.listLinks(sub);
  const { links, accountExists } = await federation.linksOfAccount(sub);
  if (!accountExists) throw problems.unknownUser(sub);
  return links;
}

export async function linkAccount(
  federation: Pick<FederationRepository, "link">,
  providers: readonly FederationProviderConfig[],
  link: { sub: string; fpType: string; fpName: string; sid: string; userName?: string },
  now: number,
): Promise<void> {
  requireProvider(providers, link.fpType, link.fpName);
  try {
    await federation.link(link, now);
  } catch (error) {
    if (error instanceof AccountNotFoundError) throw problems.unknownUser(link.sub);
    if (error instanceof FederatedAccountTakenError) throw problems.federatedAccountTaken();
    throw error;
  }
}

/** Works for providers no longer configured too, so old links can always be removed. */
export async function unlinkAccount(
  federation: Pick<FederationRepository, "unlink">,
  link: { sub: string; fpType: string; fpName: string; sid: string },
): Promise<void> {
  if (!(await federation.unlink(link.sub, link.fpType, link.fpName, link.sid))) throw problems.unknownLink();
}
