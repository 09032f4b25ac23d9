import { config } from "./config";
import type { AttributeDeps } from "./domain/accounts/attributes";
import type { RegistrationDeps } from "./domain/registration/register";
import { courierFor } from "./notify/transport";
import { createAccountStore } from "./store/accounts";
import { documentClient } from "./store/client";
import { createClientStore } from "./store/clients";
import { createCredentialStore } from "./store/credentials";
import { createDynamicClientStore } from "./store/dynamic-clients";
import { createFederationStore } from "./store/federation";
import { createRegistrationStore } from "./store/registrations";
import { createSessionStore } from "./store/sessions";
import { createSigningKeyStore } from "./store/signing-keys";
import { createAccessTokens } from "./tokens/access-token";
import { createKeyRing } from "./tokens/key-ring";

/**
 * The composition root: stores get the shared document client and table name here,
 * once per container, and everything else receives them from here.
 */
function build() {
  const deps = { client: documentClient(), tableName: config().tableName };
  const signingKeys = createSigningKeyStore(deps);
  const keyRing = createKeyRing(signingKeys);
  return {
    accounts: createAccountStore(deps),
    clients: createClientStore(deps),
    registrations: createRegistrationStore(deps),
    dynamicClients: createDynamicClientStore(deps),
    sessions: createSessionStore(deps),
    courier: courierFor(config()),
    credentials: createCredentialStore(deps),
    federation: createFederationStore(deps),
    signingKeys,
    keyRing,
    accessTokens: createAccessTokens(keyRing, config().issuer),
  };
}

let built: ReturnType<typeof build> | undefined;

export function services(): ReturnType<typeof build> {
  built ??= build();
  return built;
}

export type Services = ReturnType<typeof build>;

/** What the registration flows need, from the container's services. */
export function registrationDeps(): RegistrationDeps {
  const { accounts, registrations, dynamicClients, sessions, courier } = services();
  return { accounts, registrations, dynamicClients, sessions, courier, settings: config().settings };
}

/** What the attribute calls need. */
export function attributeDeps(): AttributeDeps {
  const { accounts, courier } = services();
  return { accounts, courier, settings: config().settings };
}
