import type { BrandColor, BrandColors, BrandingSettings, ClientBranding } from "./settings";

/**
 * The pages' own palettes (lib/pages/style.css.txt, light and dark; test/lib/branding.test.ts
 * keeps them equal) and the contrast check of an operator's colours against them.
 */

export const LIGHT_PALETTE: Record<BrandColor, string> = {
  background: "#f4f5f7",
  card: "#fff",
  text: "#1b1d21",
  muted: "#545a64",
  line: "#d5d9e0",
  accent: "#1a5fb4",
  onAccent: "#fff",
  danger: "#a51d2d",
  ok: "#1c6b3a",
  field: "#fff",
};

export const DARK_PALETTE: Record<BrandColor, string> = {
  background: "#15171b",
  card: "#1f2228",
  text: "#eceef1",
  muted: "#b2b8c2",
  line: "#3a3f48",
  accent: "#78aeed",
  onAccent: "#10131a",
  danger: "#ff8a8a",
  ok: "#7fdca0",
  field: "#16181c",
};

/** The CSS custom property of each colour (lib/pages/style.css.txt's :root). */
export const COLOR_PROPERTIES: Record<BrandColor, string> = {
  background: "--bg",
  card: "--card",
  text: "--text",
  muted: "--muted",
  line: "--line",
  accent: "--accent",
  onAccent: "--on-accent",
  danger: "--danger",
  ok: "--ok",
  field: "--field",
};

/** Text and what it is written on, on the pages; each pair must reach WCAG AA's 4.5:1. */
const TEXT_PAIRS: ReadonlyArray<[BrandColor, BrandColor]> = [
  ["text", "background"],
  ["text", "card"],
  ["text", "field"],
  ["muted", "card"],
  ["muted", "background"],
  ["accent", "card"],
  ["accent", "background"],
  ["onAccent", "accent"],
  ["danger", "card"],
  ["ok", "card"],
];

const MIN_CONTRAST = 4.5;

function channels(hex: string): number[] {
  const digits = hex.slice(1);
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join("") : digits;
  return [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16) / 255);
}

/** WCAG 2.1 relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

/** The pairs of `colors` over `palette` that fall short, in words; none when nothing is given. */
function contrastProblems(where: string, colors: BrandColors | undefined, palette: Record<BrandColor, string>) {
  if (!colors || Object.keys(colors).length === 0) return [];
  const merged = { ...palette, ...colors };
  return TEXT_PAIRS.filter(([fg, bg]) => contrastRatio(merged[fg], merged[bg]) < MIN_CONTRAST).map(
    ([fg, bg]) =>
      `${where}: ${fg} ${merged[fg]} on ${bg} ${merged[bg]} has contrast ${contrastRatio(merged[fg], merged[bg]).toFixed(2)}, below ${MIN_CONTRAST}`,
  );
}

/**
 * Unreadable colours are refused at start rather than shipped: each client's colours are
 * checked over the operator's, as its pages show them.
 */
export function brandingProblems(branding: BrandingSettings): string[] {
  const scheme = (where: string, over: ClientBranding | undefined) => [
    ...contrastProblems(`${where}colors`, { ...branding.colors, ...over?.colors }, LIGHT_PALETTE),
    ...contrastProblems(`${where}darkColors`, { ...branding.darkColors, ...over?.darkColors }, DARK_PALETTE),
  ];
  return [
    ...scheme("branding.", undefined),
    ...Object.entries(branding.clients).flatMap(([id, client]) =>
      client.colors || client.darkColors ? scheme(`branding.clients.${id}.`, client) : [],
    ),
  ];
}
