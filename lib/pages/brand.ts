import { COLOR_PROPERTIES } from "../config/branding";
import { BRAND_COLORS, type BrandColors, type BrandingSettings, type ClientBranding } from "../config/settings";
import { type Html, html } from "./html";
import type { Language } from "./text";

/**
 * The operator's branding (docs/configuration.md#branding) as the pages show it: the product's
 * name and logo in the page header, and the theme style sheet linked after ours.
 */

export const THEME_PATH = "/svc/oauth/theme.css";

export interface Brand {
  productName?: string;
  /** A data: URL (the settings validator admits nothing else). */
  logo?: string;
  /** The theme style sheet's address; unset when no colour or CSS is configured (no extra request). */
  theme?: string;
}

/** A client's own entry, if any: `Object.hasOwn`, so a client id such as `__proto__` finds nothing. */
function clientEntry(branding: BrandingSettings, clientId: string | undefined): ClientBranding | undefined {
  return clientId !== undefined && Object.hasOwn(branding.clients, clientId) ? branding.clients[clientId] : undefined;
}

const hasColors = (colors: BrandColors | undefined) => colors !== undefined && Object.keys(colors).length > 0;

/** The brand of the pages, or of one client's sign-in pages when it has overrides. */
export function brandOf(branding: BrandingSettings, clientId?: string): Brand {
  const client = clientEntry(branding, clientId);
  const clientColors = hasColors(client?.colors) || hasColors(client?.darkColors);
  const themed =
    clientColors || hasColors(branding.colors) || hasColors(branding.darkColors) || Boolean(branding.stylesheet);
  return {
    productName: client?.productName ?? branding.productName,
    logo: client?.logo ?? branding.logo,
    // Only a client with colours of its own gets its own sheet: the others share one cached answer.
    theme: themed
      ? `${THEME_PATH}${clientColors && clientId ? `?client=${encodeURIComponent(clientId)}` : ""}`
      : undefined,
  };
}

function declarations(colors: BrandColors): string {
  return BRAND_COLORS.filter((name) => colors[name] !== undefined)
    .map((name) => `${COLOR_PROPERTIES[name]}:${colors[name]}`)
    .join(";");
}

/**
 * /svc/oauth/theme.css: the configured colours over ours (light ones in the light scheme only,
 * so dark pages stay readable unless dark colours are given), then the operator's CSS.
 */
export function themeStyleSheet(branding: BrandingSettings, clientId?: string): string {
  const client = clientEntry(branding, clientId);
  const light = { ...branding.colors, ...client?.colors };
  const dark = { ...branding.darkColors, ...client?.darkColors };
  return [
    "/* svc-identity theme: the operator's branding (docs/configuration.md#branding) */",
    hasColors(light) && `@media (prefers-color-scheme:light){:root{${declarations(light)}}}`,
    hasColors(dark) && `@media (prefers-color-scheme:dark){:root{${declarations(dark)}}}`,
    branding.stylesheet,
  ]
    .filter((part) => typeof part === "string" && part !== "")
    .join("\n")
    .concat("\n");
}

const LOGO_ALT: Record<Language, string> = { en: "Logo", ru: "Логотип" };

/**
 * The logo and the product's name; the logo is decorative beside a name (`alone` false: the
 * caller writes one), and named when it is all there is.
 */
export function brandMark(brand: Brand, lang: Language, alone = true): Html {
  const logo = brand.logo
    ? html`<img src="${brand.logo}" alt="${brand.productName || !alone ? "" : LOGO_ALT[lang]}">`
    : html``;
  return html`${logo}${brand.productName ? html`<span>${brand.productName}</span>` : html``}`;
}

let configured: () => Brand = () => ({});

/**
 * Each function that serves pages names where the brand comes from once, at its entry
 * (functions/hosted.ts, account.ts, federation.ts): the pages stay functions of their view
 * and of this one setting. Unset, the pages have our own look.
 */
export function brandPages(source: () => Brand): void {
  configured = source;
}

export const pageBrand = (): Brand => configured();
