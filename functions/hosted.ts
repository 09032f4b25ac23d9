import { validators } from "../lib/compiled/hosted-validators";
import { config } from "../lib/config";
import {
  accountConsoleUri,
  bindDeps,
  deviceVerificationUri,
  invitationDeps,
  oauthClients,
  operatorConsoleUri,
  passkeyDeps,
  passwordLoginDeps,
  passwordResetDeps,
  perCall,
  registrationDeps,
  requestChecks,
  services,
  ssoSignInDeps,
} from "../lib/container";
import { withOperatorConsoleRecord } from "../lib/domain/operators/console-client";
import { invitationLinkUseCases } from "../lib/domain/organizations/invitations";
import { authorizationUseCases } from "../lib/domain/sign-in/authorization";
import { browserSignInUseCases } from "../lib/domain/sign-in/browser-sign-in";
import { selfServiceUseCases } from "../lib/domain/sign-in/self-service";
import { createApiFunction } from "../lib/http/pipeline";
import { brandOf, brandPages } from "../lib/pages/brand";
import { hostedRoutes } from "../lib/routes/hosted";
import { idTokenHints } from "../lib/tokens/id-token-hint";

// Organization invitations' links (docs/organizations.md#invitations).
const invitations = perCall(() => invitationLinkUseCases(invitationDeps()));

const authorization = () => {
  const { keyRing, ...stores } = services();
  const idTokenHint = idTokenHints(keyRing, config().issuer);
  return authorizationUseCases({
    ...stores,
    clients: withOperatorConsoleRecord(stores.clients, operatorConsoleUri()),
    clientCredentials: oauthClients(),
    idTokenHint,
    ownResource: config().issuer,
    deviceUri: deviceVerificationUri(),
    consoleUri: accountConsoleUri(),
    invitations,
  });
};

const signIn = () => {
  const { qrLogins, accounts } = services();
  const deps = { passkeys: passkeyDeps(), federation: bindDeps(), qrLogins, accounts };
  return browserSignInUseCases({
    ...deps,
    login: passwordLoginDeps(),
    authorization: authorization(),
    sso: ssoSignInDeps(),
  });
};

const useCases = {
  authorization: perCall(authorization),
  signIn: perCall(signIn),
  selfService: perCall(() =>
    selfServiceUseCases({ registration: registrationDeps(), reset: passwordResetDeps(), invitations }),
  ),
  invitations,
};

// The pages this function serves show the operator's product name, logo and theme.
brandPages(() => brandOf(config().settings.branding));

export const handler = createApiFunction("hosted", hostedRoutes(useCases), validators, requestChecks());
