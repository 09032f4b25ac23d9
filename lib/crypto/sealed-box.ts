import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM for secrets kept at rest (stored external tokens). The sealed text says
 * its format version, so the scheme or the key can change later without guessing.
 * `context` (the item and field a value belongs to) is authenticated, so a sealed
 * value copied to another item or field does not open there.
 */

const FORMAT = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealedBoxError extends Error {
  constructor() {
    super("sealed value cannot be opened: wrong key, wrong context or tampered");
    this.name = "SealedBoxError";
  }
}

export function seal(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${FORMAT}.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

export function open(key: Buffer, sealed: string, context: string): string {
  const [format, iv, body] = sealed.split(".");
  if (format !== FORMAT || !iv || !body) throw new SealedBoxError();
  const bytes = Buffer.from(body, "base64url");
  if (bytes.length < TAG_BYTES) throw new SealedBoxError();
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new SealedBoxError();
  }
}
