import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A WebAuthn authenticator in software, for REST tests that have no browser: it answers
 * creation and request options the way a platform passkey does (ES256, "none" attestation,
 * user verified). Browser tests use chromium's virtual authenticator instead.
 */

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

export interface SoftPasskey {
  id: string;
  privateKey: KeyObject;
  userHandle: string;
  rpId: string;
  counter: number;
}

const FLAGS = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 };

function authenticatorData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
}

function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: "jwk" });
  const map = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x as string, "base64url")],
    [-3, Buffer.from(jwk.y as string, "base64url")],
  ]);
  return isoCBOR.encode(map);
}

function clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin: string): string {
  return JSON.stringify({ type, challenge, origin, crossOrigin: false });
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

/** Answers creation options; `synced` sets the backup flags of a multi-device passkey. */
export function createPasskey(
  answered: unknown,
  origin: string,
  opts: { synced?: boolean; counter?: number; userVerified?: boolean; credentialId?: Buffer } = {},
) {
  const options = answered as CreationOptions;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  // A chosen id: an authenticator may answer with any id, even one another account holds.
  const credentialId = opts.credentialId ?? randomBytes(32);
  const rpId = options.rp.id ?? new URL(origin).hostname;
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(credentialId.length);
  const attested = Buffer.concat([Buffer.alloc(16), idLength, credentialId, coseKey(publicKey)]);
  const flags =
    FLAGS.up | (opts.userVerified === false ? 0 : FLAGS.uv) | FLAGS.at | (opts.synced ? FLAGS.be | FLAGS.bs : 0);
  const authData = authenticatorData(rpId, flags, opts.counter ?? 0, attested);
  const attestationObject = isoCBOR.encode(
    new Map<string, unknown>([
      ["fmt", "none"],
      ["attStmt", new Map()],
      ["authData", new Uint8Array(authData)],
    ]) as never,
  );
  const passkey: SoftPasskey = {
    id: b64url(credentialId),
    privateKey,
    userHandle: options.user.id,
    rpId,
    counter: opts.counter ?? 0,
  };
  const response = {
    id: passkey.id,
    rawId: passkey.id,
    type: "public-key",
    authenticatorAttachment: "platform",
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64url(Buffer.from(clientData("webauthn.create", options.challenge, origin))),
      attestationObject: b64url(attestationObject),
      transports: ["internal", "hybrid"],
    },
  };
  return { passkey, response };
}

/** Signs request options with the passkey; each assertion moves its counter on when `counting`. */
export function assert(
  passkey: SoftPasskey,
  options: { challenge: string },
  origin: string,
  opts: { counting?: boolean; userHandle?: string | null; counter?: number } = {},
) {
  if (opts.counting) passkey.counter += 1;
  const authData = authenticatorData(passkey.rpId, FLAGS.up | FLAGS.uv, opts.counter ?? passkey.counter);
  const clientDataJSON = Buffer.from(clientData("webauthn.get", options.challenge, origin));
  const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), passkey.privateKey);
  return {
    id: passkey.id,
    rawId: passkey.id,
    type: "public-key",
    authenticatorAttachment: "platform",
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64url(clientDataJSON),
      authenticatorData: b64url(authData),
      signature: b64url(signature),
      ...(opts.userHandle !== null && { userHandle: opts.userHandle ?? passkey.userHandle }),
    },
  };
}
