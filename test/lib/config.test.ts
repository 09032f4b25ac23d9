import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../lib/config/environment";
import { defaultSettings } from "../../lib/config/settings";
import { ConfigError, parseSettings } from "../../lib/config/validation";
import { settingsSchema } from "../../lib/settings-schema";

describe("configuration", () => {
  it("when nothing is configured, it uses the defaults of docs/configuration.md", () => {
    const config = loadConfig({});
    expect(config.tableName).toBe("svc-identity");
    expect(config.port).toBe(3000);
    expect(config.dynamodbEndpoint).toBe("http://127.0.0.1:8000");
    expect(config.settings).toEqual(defaultSettings);
    expect(config.settings.passwordPolicy).toMatchObject({ minLength: 8, maxLength: 256, dictionary: true });
  });

  it("when on Lambda, it uses the regional DynamoDB endpoint", () => {
    expect(loadConfig({ AWS_LAMBDA_FUNCTION_NAME: "users" }).dynamodbEndpoint).toBeUndefined();
  });

  it("when some keys are given, it merges them over the defaults", () => {
    const settings = parseSettings({ codes: { length: 8 }, defaultLanguage: "en" });
    expect(settings.codes).toEqual({ length: 8, ttlSeconds: 600, attempts: 3 });
    expect(settings.defaultLanguage).toBe("en");
  });

  it.each([
    [{ passwordPolicy: { maxLength: 32 } }, /maxLength/],
    [{ passwordPolicy: { minLength: 300 } }, /minLength exceeds maxLength/],
    [{ codes: { lenght: 6 } }, /must NOT have additional properties/],
    [{ defaultLanguage: "de" }, /defaultLanguage/],
    [{ tokens: { accessTtlSeconds: "3600" } }, /must be integer/],
    [{ clients: { cacheSeconds: 301 } }, /cacheSeconds must be <= 300/],
  ])("when the file says %j, it stops with a clear message", (source, message) => {
    expect(() => parseSettings(source)).toThrow(ConfigError);
    expect(() => parseSettings(source)).toThrow(message);
  });

  it("when the settings schema is checked against its meta-schema, it is valid (the cold start skips that check)", () => {
    const ajv = new Ajv({ allErrors: true });
    expect(ajv.validateSchema(settingsSchema), ajv.errorsText()).toBe(true);
  });

  it("when a port is not a number, it says which variable is wrong", () => {
    expect(() => loadConfig({ PORT: "abc" })).toThrow(/PORT must be a port number/);
  });

  describe("federation providers", () => {
    const provider = {
      type: "oidc",
      name: "corp",
      authorizeUrl: "https://id.example.com/authorize",
      tokenUrl: "https://id.example.com/token",
      clientId: "svc",
      clientSecret: "s",
    };

    it("when a provider leaves out the optional keys, it gets rememberTokens false and scope openid", () => {
      const settings = parseSettings({ federation: { providers: [provider] } });
      expect(settings.federation).toEqual({
        providers: [{ ...provider, rememberTokens: false, scope: "openid" }],
        stateTtlSeconds: 600,
      });
    });

    it.each([
      [{ ...provider, type: "oidc_x" }, /type must match pattern/],
      [{ ...provider, tokenUrl: "http://id.example.com/token" }, /tokenUrl must use https/],
      [{ ...provider, userinfoUrl: "not a url" }, /userinfoUrl is not an absolute URL/],
      [{ ...provider, clientSecret: "" }, /clientSecret must NOT have fewer than 1 characters/],
      [{ ...provider, type: "org" }, /type "org" is reserved for organizations' single sign-on/],
    ])("when a provider is %j, it stops with a clear message", (entry, message) => {
      expect(() => parseSettings({ federation: { providers: [entry] } })).toThrow(message);
    });

    it("when two providers share a type and name, or the callback is not https, it stops", () => {
      expect(() => parseSettings({ federation: { providers: [provider, provider] } })).toThrow(
        /federation.providers\[1\] repeats oidc:corp/,
      );
      expect(() => parseSettings({ federation: { callbackUrl: "http://api.example.com/cb" } })).toThrow(
        /callbackUrl must use https/,
      );
    });

    it("when a URL is plain http to this machine, it is accepted (local providers)", () => {
      const local = {
        ...provider,
        authorizeUrl: "http://127.0.0.1:8081/authorize",
        tokenUrl: "http://localhost:8081/t",
      };
      expect(parseSettings({ federation: { providers: [local] } }).federation.providers[0].tokenUrl).toBe(
        "http://localhost:8081/t",
      );
    });
  });

  describe("breached-password lookup", () => {
    it("when nothing is configured, there is no lookup", () => {
      expect(parseSettings({ passwordPolicy: { minLength: 12 } }).passwordPolicy.breachedPasswords).toBeUndefined();
    });

    it("when only the range URL is given, the lookup waits 2000 ms at most; plain http to this machine is accepted", () => {
      const local = { rangeUrl: "http://127.0.0.1:8089/range" };
      expect(parseSettings({ passwordPolicy: { breachedPasswords: local } }).passwordPolicy).toMatchObject({
        minLength: 8,
        breachedPasswords: { rangeUrl: local.rangeUrl, timeoutMs: 2000 },
      });
      const given = { rangeUrl: "https://api.pwnedpasswords.com/range", timeoutMs: 500 };
      expect(parseSettings({ passwordPolicy: { breachedPasswords: given } }).passwordPolicy.breachedPasswords).toEqual(
        given,
      );
    });

    it.each([
      [{ rangeUrl: "http://api.pwnedpasswords.com/range" }, /breachedPasswords.rangeUrl must use https/],
      [{ rangeUrl: "api.pwnedpasswords.com/range" }, /breachedPasswords.rangeUrl is not an absolute URL/],
      [{ timeoutMs: 500 }, /must have required property 'rangeUrl'/],
      [{ rangeUrl: "https://api.pwnedpasswords.com/range", timeoutMs: 50 }, /timeoutMs must be >= 100/],
      [{ rangeUrl: "https://api.pwnedpasswords.com/range", url: "x" }, /must NOT have additional properties/],
    ])("when it is %j, it stops with a clear message", (entry, message) => {
      expect(() => parseSettings({ passwordPolicy: { breachedPasswords: entry } })).toThrow(ConfigError);
      expect(() => parseSettings({ passwordPolicy: { breachedPasswords: entry } })).toThrow(message);
    });
  });

  describe("CORS origins", () => {
    it("when nothing is configured, no origin is allowed", () => {
      expect(parseSettings({}).cors.allowedOrigins).toEqual([]);
      expect(parseSettings({ codes: { length: 6 } }).cors.allowedOrigins).toEqual([]);
    });

    it("when the origins are exact scheme://host[:port], or a lone *, they are kept as given", () => {
      const origins = ["https://app.example.org", "http://localhost:5173", "http://127.0.0.1:8080"];
      expect(parseSettings({ cors: { allowedOrigins: origins } }).cors.allowedOrigins).toEqual(origins);
      expect(parseSettings({ cors: { allowedOrigins: ["*"] } }).cors.allowedOrigins).toEqual(["*"]);
    });

    it.each([
      ["https://app.example.org/", /allowedOrigins\[0\] must be exactly/],
      ["https://app.example.org/spa", /allowedOrigins\[0\] must be exactly/],
      ["https://app.example.org:443", /allowedOrigins\[0\] must be exactly/],
      ["https://user@app.example.org", /allowedOrigins\[0\] must be exactly/],
      ["HTTPS://APP.example.org", /allowedOrigins\[0\] must be exactly/],
      ["app.example.org", /allowedOrigins\[0\] is not an origin/],
      ["ftp://files.example.org", /allowedOrigins\[0\] must use http or https/],
      ["", /allowedOrigins/],
    ])("when an origin is %j, it stops with a clear message", (origin, message) => {
      expect(() => parseSettings({ cors: { allowedOrigins: [origin] } })).toThrow(message);
    });

    it("when * comes with other origins, or an origin repeats, it stops", () => {
      expect(() => parseSettings({ cors: { allowedOrigins: ["https://a.example.org", "*"] } })).toThrow(
        /allowedOrigins\[1\]: "\*" must be the only entry/,
      );
      const twice = ["https://a.example.org", "https://a.example.org"];
      expect(() => parseSettings({ cors: { allowedOrigins: twice } })).toThrow(/duplicate/);
    });
  });

  describe("the data key", () => {
    it("when SVC_DATA_KEY is 32 bytes of base64, it is the inline key; a secret id names the AWS secret", () => {
      const key = Buffer.alloc(32, 7).toString("base64");
      expect(loadConfig({ SVC_DATA_KEY: key }).dataKey).toEqual({ kind: "inline", material: Buffer.alloc(32, 7) });
      expect(loadConfig({ SVC_DATA_KEY_SECRET_ID: "arn:x" }).dataKey).toEqual({ kind: "secret", secretId: "arn:x" });
      expect(loadConfig({}).dataKey).toBeUndefined();
    });

    it.each([
      ["too short", Buffer.alloc(16).toString("base64")],
      ["not base64", "%%%"],
    ])("when SVC_DATA_KEY is %s, it stops saying how to make one", (_, value) => {
      expect(() => loadConfig({ SVC_DATA_KEY: value })).toThrow(/openssl rand -base64 32/);
    });
  });
});
