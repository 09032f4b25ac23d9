import { validators } from "../lib/compiled/token-validators";
import { config } from "../lib/config";
import {
  deviceVerificationUri,
  loginDeps,
  oauthClients,
  passwordLoginDeps,
  perCall,
  requestChecks,
  resourceDpop,
  services,
  tokenEndpointDpop,
} from "../lib/container";
import { tokenUseCases } from "../lib/domain/oauth/token-endpoint";
import { oidcUseCases } from "../lib/domain/oidc/oidc-endpoints";
import { createApiFunction } from "../lib/http/pipeline";
import { endpointUrl, oidcRoutes } from "../lib/routes/oidc";
import { tokenRoutes } from "../lib/routes/token";

const tokens = {
  token: perCall(() => {
    const { clients, codes, qrLogins, accounts, resources, devices, pushedRequests, accessTokens } = services();
    const stores = { clients, codes, qrLogins, accounts, resources, devices, pushedRequests };
    const deps = { clientCredentials: oauthClients(), ...stores };
    const accessTokenVerifier = accessTokens;
    const ownResource = config().issuer;
    const verificationUri = deviceVerificationUri();
    const login = loginDeps();
    const passwordLogin = passwordLoginDeps;
    const endpoints = { tokenEndpoint: endpointUrl("/svc/oauth/te"), parEndpoint: endpointUrl("/svc/oauth/par") };
    const dpop = { dpop: tokenEndpointDpop(), ...endpoints };
    return tokenUseCases({ ...deps, ...dpop, ownResource, verificationUri, login, passwordLogin, accessTokenVerifier });
  }),
  jwks: () => services().keyRing.jwks(),
};
const oidc = perCall(() => oidcUseCases({ ...services(), clientCredentials: oauthClients(), dpop: resourceDpop() }));

export const handler = createApiFunction(
  "token",
  [...tokenRoutes(tokens), ...oidcRoutes(oidc)],
  validators,
  requestChecks(),
);
