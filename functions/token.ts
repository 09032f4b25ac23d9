import { validators } from "../lib/compiled/token-validators";
import { config } from "../lib/config";
import {
  deviceVerificationUri,
  loginDeps,
  oauthClients,
  passwordLoginDeps,
  perCall,
  requestChecks,
  services,
} from "../lib/container";
import { tokenUseCases } from "../lib/domain/oauth/token-endpoint";
import { oidcUseCases } from "../lib/domain/oidc/oidc-endpoints";
import { createApiFunction } from "../lib/http/pipeline";
import { oidcRoutes } from "../lib/routes/oidc";
import { tokenRoutes } from "../lib/routes/token";

const tokens = {
  token: perCall(() => {
    const { clients, codes, qrLogins, accounts, resources, devices, pushedRequests } = services();
    const stores = { clients, codes, qrLogins, accounts, resources, devices, pushedRequests };
    const deps = { clientCredentials: oauthClients(), ...stores };
    const ownResource = config().issuer;
    const verificationUri = deviceVerificationUri();
    const login = loginDeps();
    return tokenUseCases({ ...deps, ownResource, verificationUri, login, passwordLogin: passwordLoginDeps });
  }),
  jwks: () => services().keyRing.jwks(),
};
const oidc = perCall(() => oidcUseCases({ ...services(), clientCredentials: oauthClients() }));

export const handler = createApiFunction(
  "token",
  [...tokenRoutes(tokens), ...oidcRoutes(oidc)],
  validators,
  requestChecks(),
);
