import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { traced } from "../tracing";

/** The data key's material from its Secrets Manager secret (the stack creates it). */
export async function secretMaterial(secretId: string, region: string): Promise<Buffer> {
  const client = traced(new SecretsManagerClient({ region }));
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!SecretString || SecretString.length < 32) throw new Error("the secret holds no key material");
    return Buffer.from(SecretString, "utf8");
  } finally {
    client.destroy();
  }
}
