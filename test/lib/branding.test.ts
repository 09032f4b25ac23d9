import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COLOR_PROPERTIES, contrastRatio, DARK_PALETTE, LIGHT_PALETTE } from "../../lib/config/branding";
import { BRAND_COLORS, defaultSettings } from "../../lib/config/settings";
import { brandOf, themeStyleSheet } from "../../lib/pages/brand";

/** The contrast check knows the colours the pages really have (lib/pages/style.css.txt). */

const STYLE = readFileSync("lib/pages/style.css.txt", "utf8");

function palette(block: string): Record<string, string | undefined> {
  return Object.fromEntries(
    BRAND_COLORS.map((name) => [name, block.match(new RegExp(`${COLOR_PROPERTIES[name]}:(#[0-9a-f]+)`))?.[1]]),
  );
}

describe("branding", () => {
  it("checks contrast against the style sheet's own light and dark colours", () => {
    const [light, dark] = [STYLE.split("\n")[0], STYLE.split("\n")[1]];
    expect(dark).toMatch(/^@media \(prefers-color-scheme:dark\)/);
    expect(palette(light)).toEqual(LIGHT_PALETTE);
    expect(palette(dark)).toEqual(DARK_PALETTE);
    expect(contrastRatio("#000", "#fff")).toBeCloseTo(21);
  });

  it("themes nothing, and links no theme, when nothing is configured", () => {
    expect(brandOf(defaultSettings.branding, "web")).toEqual({});
    expect(themeStyleSheet(defaultSettings.branding)).not.toContain("{");
  });

  it("links a client's own theme only when the client has colours of its own", () => {
    const branding = {
      productName: "Acme",
      colors: { accent: "#123456" },
      clients: { named: { productName: "Named" }, coloured: { colors: { text: "#000" } } },
    };
    expect(brandOf(branding, "named")).toEqual({ productName: "Named", theme: "/svc/oauth/theme.css" });
    expect(brandOf(branding, "coloured")).toEqual({
      productName: "Acme",
      theme: "/svc/oauth/theme.css?client=coloured",
    });
    expect(brandOf(branding, "__proto__")).toEqual({ productName: "Acme", theme: "/svc/oauth/theme.css" });
    expect(themeStyleSheet(branding, "coloured")).toContain("{:root{--accent:#123456;--text:#000}}");
  });
});
