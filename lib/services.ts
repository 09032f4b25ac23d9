import { config } from "./config";
import { createAccountSearchStore } from "./store/account-search";
import { createAccountStore } from "./store/accounts";
import { documentClient } from "./store/client";
import { createClientStore } from "./store/clients";
import { createGroupStore } from "./store/groups";
import { createRightDefinitionStore } from "./store/right-definitions";
import { createRightStore } from "./store/rights";
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
    rights: createRightStore(deps),
    rightDefinitions: createRightDefinitionStore(deps),
    groups: createGroupStore(deps),
    accountSearch: createAccountSearchStore(deps),
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
