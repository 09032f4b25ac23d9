import { config } from "./config";
import { createAccountStore } from "./store/accounts";
import { documentClient } from "./store/client";
import { createClientStore } from "./store/clients";
import { createCredentialStore } from "./store/credentials";
import { createFederationStore } from "./store/federation";
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
