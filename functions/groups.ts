import { validators } from "../lib/compiled/groups-validators";
import { config } from "../lib/config";
import {
  invitationDeps,
  organizationDomains,
  perCall,
  requestChecks,
  scimBaseUrl,
  scimStore,
  services,
  ssoSecretKey,
  txtLookup,
} from "../lib/container";
import { groupUseCases } from "../lib/domain/groups/groups";
import { domainUseCases } from "../lib/domain/organizations/domains";
import { invitationUseCases } from "../lib/domain/organizations/invitations";
import { organizationUseCases } from "../lib/domain/organizations/organizations";
import { ssoUseCases } from "../lib/domain/organizations/sso";
import { scimConnectionUseCases } from "../lib/domain/scim/connection";
import { createApiFunction } from "../lib/http/pipeline";
import { groupsRoutes } from "../lib/routes/groups";
import { organizationDomainRoutes } from "../lib/routes/organization-domains";
import { invitationRoutes } from "../lib/routes/organization-invitations";
import { organizationScimRoutes } from "../lib/routes/organization-scim";
import { organizationSsoRoutes } from "../lib/routes/organization-sso";
import { organizationsRoutes } from "../lib/routes/organizations";

const groups = perCall(() => {
  const { groups, accountSearch } = services();
  return groupUseCases({ groups, accounts: accountSearch });
});

// Organizations are groups of profile org (docs/organizations.md): the same function serves their admin calls.
const orgs = perCall(() => {
  const { organizations, groups, rightDefinitions, events } = services();
  return organizationUseCases({ orgs: organizations, groups, rightDefinitions, events });
});

// Verified domains (docs/organizations.md#verified-domains): claims, TXT checks, policies.
const domains = perCall(() => {
  const { organizations, groups } = services();
  return domainUseCases({ domains: organizationDomains(), orgs: organizations, groups, dns: txtLookup() });
});

// Their invitations too (docs/organizations.md#invitations).
const invitations = perCall(() => invitationUseCases(invitationDeps()));

// An organization's own OpenID Connect provider; its sign-ins come back to the hosted pages' federated callback.
const sso = perCall(() => {
  const { organizations, rightDefinitions, events, orgSso } = services();
  const callbackUrl = `${config().issuer}/oauth/federated/callback`;
  return ssoUseCases({
    orgs: organizations,
    rightDefinitions,
    events,
    sso: orgSso,
    secretKey: ssoSecretKey,
    callbackUrl,
  });
});

// Its SCIM connection: the token the organization's identity provider provisions with (docs/scim.md).
const scim = perCall(() => {
  const { organizations, events } = services();
  return scimConnectionUseCases({ orgs: organizations, events, scim: scimStore(), baseUrl: scimBaseUrl() });
});

export const handler = createApiFunction(
  "groups",
  [
    ...groupsRoutes(groups),
    ...organizationsRoutes(orgs),
    ...organizationDomainRoutes(domains),
    ...invitationRoutes(invitations, orgs),
    ...organizationSsoRoutes(sso),
    ...organizationScimRoutes(scim),
  ],
  validators,
  requestChecks(),
);
