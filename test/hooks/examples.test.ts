import { resolve } from "node:path";
import { decodeJwt } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import { services } from "../../lib/container";
import { uniqueId } from "../support/fixtures";
import { registerWithEmail, useSignInAccount } from "../support/hooks";
import { passwordLogin } from "../support/login";
import { useSettings } from "../support/oauth-provider";

/** The example hooks of examples/hooks/ as module targets, as docs/hooks.md configures them for npm start. */

const example = (file: string) => resolve("examples/hooks", file);

describe("examples/hooks/refuse-domain.mjs", () => {
  beforeEach(() =>
    useSettings({ hooks: { preRegistration: { target: example("refuse-domain.mjs"), timeoutMs: 1000 } } }),
  );

  it("when the e-mail is at a refused domain, the registration is refused with the example's message", async () => {
    const { response, sub } = await registerWithEmail({ value: `${uniqueId("x")}@example.net`, verified: true });
    expect(response.statusCode).toBe(403);
    expect(response.json.errors).toEqual([{ errMsg: "Регистрация с этого домена закрыта.", field: "user" }]);
    expect(await services().accounts.get(sub)).toBeUndefined();
  });

  it("when the e-mail is elsewhere, the registration goes on", async () => {
    const { response, sub } = await registerWithEmail({ value: `${uniqueId("x")}@example.com`, verified: true });
    expect(response.statusCode).toBe(200);
    expect(await services().accounts.get(sub)).toBeDefined();
  });
});

describe("examples/hooks/tenant-claim.mjs", () => {
  const PASSWORD = "a long enough passphrase";
  const seeded = useSignInAccount(PASSWORD);
  beforeEach(() => useSettings({ hooks: { preTokenIssue: { target: example("tenant-claim.mjs"), timeoutMs: 1000 } } }));

  it("when a user signs in, both tokens carry the tenant claim", async () => {
    const response = await passwordLogin(seeded.client, {
      username: seeded.account.sub,
      password: PASSWORD,
      scope: "svc_api_user",
    });
    expect(response.statusCode).toBe(200);
    expect(decodeJwt(response.json.access_token as string).tenant).toBe("default");
    expect(decodeJwt(response.json.id_token as string).tenant).toBe("default");
  });
});
