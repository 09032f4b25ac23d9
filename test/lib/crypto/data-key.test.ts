import { randomBytes } from "node:crypto";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { createDataKeys } from "../../../lib/crypto/data-key";
import { errorResult } from "../../../lib/http/error-body";

/** Secrets Manager is AWS-only, so here (unlike DynamoDB) its client is mocked. */
const secrets = mockClient(SecretsManagerClient);
afterEach(() => secrets.reset());

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return errorResult(error, "v3", "r");
  }
  throw new Error("expected a refusal");
}

describe("the data key", () => {
  it("when inline, each purpose gets its own stable 32-byte subkey, never the key itself", async () => {
    const material = randomBytes(32);
    const keys = createDataKeys({ kind: "inline", material }, "eu-west-1");
    const tokens = await keys.key("federated-tokens");
    const state = await keys.key("federation-state");
    expect(tokens).toHaveLength(32);
    expect(tokens.equals(state)).toBe(false);
    expect(tokens.equals(material)).toBe(false);
    expect((await keys.key("federated-tokens")).equals(tokens)).toBe(true);
    const sameMaterial = createDataKeys({ kind: "inline", material }, "eu-west-1");
    expect((await sameMaterial.key("federated-tokens")).equals(tokens)).toBe(true);
  });

  it("when it is a Secrets Manager secret, it is read once per container", async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: "a".repeat(64) });
    const keys = createDataKeys(
      { kind: "secret", secretId: "arn:aws:secretsmanager:eu-west-1:1:secret:k" },
      "eu-west-1",
    );
    await Promise.all([keys.key("federated-tokens"), keys.key("federation-state"), keys.key("federated-tokens")]);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(secrets.commandCalls(GetSecretValueCommand)[0].args[0].input).toEqual({
      SecretId: "arn:aws:secretsmanager:eu-west-1:1:secret:k",
    });
  });

  it("when the secret cannot be read, it answers 503 without details and tries again on the next call", async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error("AccessDeniedException"))
      .resolves({ SecretString: "b".repeat(64) });
    const keys = createDataKeys({ kind: "secret", secretId: "s" }, "eu-west-1");
    const result = await refusal(keys.key("federated-tokens"));
    expect(result.statusCode).toBe(503);
    expect(JSON.parse(result.body)).toEqual({
      type: "process_error",
      error: "service_unavailable",
      desc: "the data key is not available, try again later",
      params: { requestId: "r" },
    });
    expect(await keys.key("federated-tokens")).toHaveLength(32);
  });

  it("when no key is configured, it answers 503", async () => {
    const result = await refusal(createDataKeys(undefined, "eu-west-1").key("federation-state"));
    expect(result.statusCode).toBe(503);
  });
});
