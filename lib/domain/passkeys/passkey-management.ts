import type { RegistrationResponseJSON } from "@simplewebauthn/server";
import type { SecurityEvent } from "../audit/security-event";
import {
  addPasskey,
  deletePasskey,
  listPasskeys,
  type PasskeyDeps,
  registrationOptions,
  renamePasskey,
} from "./passkeys";

/**
 * What the attach schema checks of a RegistrationResponseJSON (credential.toJSON()): the
 * fields the library reads first. The library checks the rest.
 */
export interface PasskeyCreationAnswer {
  id: string;
  rawId: string;
  type: "public-key";
  authenticatorAttachment?: string;
  clientExtensionResults?: Record<string, unknown>;
  response: { clientDataJSON: string; attestationObject: string; transports?: string[] };
}

/** Who acted, for a change's security event (recorded in its transaction). */
export type PasskeyActor = Omit<SecurityEvent, "type" | "result" | "sbj">;

export type PasskeyUseCases = ReturnType<typeof passkeyUseCases>;

/** An application enrols and manages a user's passkeys (docs/passkeys.md), as with TOTP. */
export function passkeyUseCases(deps: PasskeyDeps) {
  return {
    list: (sub: string) => listPasskeys(deps, sub),

    /** Creation options whose challenge only this account may answer. */
    async creationOptions(sub: string) {
      return (await registrationOptions(deps, sub, sub)).options;
    },

    add(sub: string, input: { response: PasskeyCreationAnswer; name?: string }, actor: PasskeyActor) {
      // The library verifies the answer as a whole: the schema's looser strings are its to refuse.
      const response = input.response as RegistrationResponseJSON;
      return addPasskey(deps, sub, { response, name: input.name }, sub, actor);
    },

    rename: (sub: string, id: string, name: string) => renamePasskey(deps, sub, id, name),

    remove: (sub: string, id: string, actor: PasskeyActor) => deletePasskey(deps, sub, id, actor),
  };
}
