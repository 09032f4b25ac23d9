import { type RouteDefinition, specsOnly } from "../http/route";
import { accountRoutes } from "./account";
import { activityRoutes } from "./activity";
import { auditRoutes } from "./audit";
import { clientRegistrationRoutes } from "./client-registration";
import { clientsRoutes } from "./clients";
import { consoleRoutes } from "./console";
import { devicesRoutes } from "./devices";
import { federationRoutes } from "./federation";
import { groupsRoutes } from "./groups";
import { hostedRoutes } from "./hosted";
import { keysRoutes } from "./keys";
import { metaRoutes } from "./meta";
import { oidcRoutes } from "./oidc";
import { organizationDomainRoutes } from "./organization-domains";
import { invitationRoutes } from "./organization-invitations";
import { organizationScimRoutes } from "./organization-scim";
import { organizationSsoRoutes } from "./organization-sso";
import { organizationsRoutes } from "./organizations";
import { passwordsRoutes } from "./passwords";
import { registrationRoutes } from "./registration";
import { resourcesRoutes } from "./resources";
import { rightsRoutes } from "./rights";
import { scimRoutes } from "./scim";
import { securityRoutes } from "./security";
import { tokenRoutes } from "./token";
import { usersRoutes } from "./users";

/**
 * Every route, once: the CDK stack, the local gateway, the validator compiler and the
 * OpenAPI document are made from this list. API Gateway (and OpenAPI) refuse two
 * variables of different names at the same level of a path, so every `/users/{x}` route
 * names its variable `subjectId`; routes that address the account by instanceId say so
 * in `subject.kind`.
 */
export const routes: readonly RouteDefinition[] = [
  ...tokenRoutes(specsOnly()),
  ...oidcRoutes(specsOnly()),
  ...hostedRoutes(specsOnly()),
  ...accountRoutes(specsOnly()),
  ...consoleRoutes(specsOnly()),
  ...metaRoutes(specsOnly()),
  ...usersRoutes(specsOnly(), specsOnly()),
  ...registrationRoutes(specsOnly()),
  ...passwordsRoutes(specsOnly()),
  ...securityRoutes(specsOnly()),
  ...devicesRoutes(specsOnly()),
  ...federationRoutes(specsOnly()),
  ...rightsRoutes(specsOnly()),
  ...groupsRoutes(specsOnly()),
  ...organizationsRoutes(specsOnly()),
  ...organizationDomainRoutes(specsOnly()),
  ...invitationRoutes(specsOnly(), specsOnly()),
  ...organizationSsoRoutes(specsOnly()),
  ...organizationScimRoutes(specsOnly()),
  ...scimRoutes(specsOnly()),
  ...auditRoutes(specsOnly()),
  ...activityRoutes(specsOnly()),
  ...clientsRoutes(specsOnly()),
  ...clientRegistrationRoutes(specsOnly()),
  ...resourcesRoutes(specsOnly()),
  ...keysRoutes(specsOnly()),
];
