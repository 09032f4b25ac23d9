import { describe, expect, it } from "vitest";
import { ConfigError, defaultSettings, loadConfig, parseSettings } from "../../lib/config";

describe("configuration", () => {
  it("when nothing is configured, it uses the defaults of DESIGN 7", () => {
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
  ])("when the file says %j, it stops with a clear message", (source, message) => {
    expect(() => parseSettings(source)).toThrow(ConfigError);
    expect(() => parseSettings(source)).toThrow(message);
  });

  it("when a port is not a number, it says which variable is wrong", () => {
    expect(() => loadConfig({ PORT: "abc" })).toThrow(/PORT must be a port number/);
  });
});
