import { describe, expect, it } from "vitest";
import { userAgentDescriber } from "../../../../lib/domain/devices/device";

const CHROME_ON_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

const describeUserAgent = await userAgentDescriber();

describe("describeUserAgent", () => {
  it("when given a browser's User-Agent, it names the browser, major version and OS", () => {
    expect(describeUserAgent(CHROME_ON_WINDOWS)).toEqual({
      tp: "Chrome 120",
      os: "Windows 10",
      deviceType: "desktop",
      device: "",
      name: "Chrome 120 on Windows 10",
    });
  });

  it("when an app's User-Agent names a phone, it gives vendor, model and type", () => {
    expect(describeUserAgent("MyApp/1.2 (iPhone; iOS 17.1)")).toMatchObject({
      os: "iOS 17.1",
      deviceType: "mobile",
      device: "Apple iPhone",
    });
  });

  it("when a string is described again, it answers the same and a caller's change does not leak into the next answer", () => {
    const first = describeUserAgent("curl/8.5.0");
    first.tp = "changed by a caller";
    expect(describeUserAgent("curl/8.5.0")).toEqual({
      tp: "unknown",
      os: "unknown",
      deviceType: "desktop",
      device: "",
      name: "curl/8.5.0",
    });
  });

  it("when more strings arrive than it keeps, older ones are described correctly again", () => {
    for (let i = 0; i < 300; i += 1) describeUserAgent(`Agent${i}/1.0`);
    expect(describeUserAgent(CHROME_ON_WINDOWS).name).toBe("Chrome 120 on Windows 10");
    expect(describeUserAgent("Agent0/1.0").name).toBe("Agent0/1.0");
  });
});
