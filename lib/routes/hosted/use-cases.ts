import type { InvitationLinkUseCases } from "../../domain/organizations/invitations";
import type { AuthorizationUseCases } from "../../domain/sign-in/authorization";
import type { BrowserSignInUseCases } from "../../domain/sign-in/browser-sign-in";
import type { SelfServiceUseCases } from "../../domain/sign-in/self-service";

/** What the hosted pages' routes are handed (functions/hosted.ts builds them from the container). */
export interface HostedUseCases {
  /** The request a form carries, the browser session, consent, the code, logout. */
  authorization: AuthorizationUseCases;
  /** Every way in and every step after it (lib/domain/sign-in/). */
  signIn: BrowserSignInUseCases;
  /** Registration and forgotten password. */
  selfService: SelfServiceUseCases;
  /** Organization invitations' links (docs/organizations.md#invitations). */
  invitations: InvitationLinkUseCases;
}
