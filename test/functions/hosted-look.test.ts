import { mkdirSync } from "node:fs";
import { join } from "node:path";
import axe from "axe-core";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { parseSettings } from "../../lib/config/validation";
import { useAccountConsole } from "../support/account-console";
import { seedAccount } from "../support/fixtures";
import { PASSWORD } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";

/**
 * The look of every hosted page and console section (docs/account/look.md), in chromium: at
 * 360 px and 1280 px nothing overflows sideways and every control has a box inside the
 * viewport's width; axe-core's colour-contrast rule passes in light and dark, on our theme and
 * on an operator's (branding settings, switched per describe). `npm run screenshots` saves each
 * page of our theme as <page>-<lang>-<width>.png.
 */

const { issuer, browser, relyingParty, startAuthorization, submit, signedIn, at } = await useAccountConsole();

const SCREENSHOTS = process.env.SVC_SCREENSHOTS;
const WIDTHS = [1280, 360] as const;
/** A walk visits 17 pages, each at two widths and in two colour schemes. */
const WALK_TIMEOUT = 180_000;

/** A small SVG logo as the settings take it: a data: URL. */
const LOGO = `data:image/svg+xml;base64,${Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><circle cx="16" cy="16" r="14" fill="#6d28d9"/></svg>`,
).toString("base64")}`;

const OPERATOR_CSS = ".brand span{letter-spacing:.05em}";

const BRANDING = {
  productName: "Acme Cloud",
  logo: LOGO,
  colors: { accent: "#6d28d9", background: "#faf7f2", text: "#1f1a17" },
  darkColors: { accent: "#c4b5fd", onAccent: "#1b1530" },
  stylesheet: OPERATOR_CSS,
};

interface Look {
  overflow: { scrollWidth: number; innerWidth: number } | undefined;
  unreachable: string[];
}

/** What a control is, for a failure message. */
const LOOK_SCRIPT = `(() => {
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.getAttribute("name") ? "[name=" + el.getAttribute("name") + "]" : "") + " " + (el.textContent || el.getAttribute("href") || "").trim().slice(0, 40);
  const unreachable = [];
  for (const el of document.querySelectorAll("a, button, input, select, textarea, summary")) {
    // Hidden by design: hidden fields, [hidden] parts the script shows, a closed toggle's content.
    if (el.matches("input[type=hidden]") || el.closest("[hidden]")) continue;
    const details = el.closest("details");
    if (details && !details.open && el.tagName !== "SUMMARY") continue;
    const box = el.getBoundingClientRect();
    if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: true }) || box.width === 0 || box.height === 0 || box.left < 0 || box.right > window.innerWidth + 0.5)
      unreachable.push(name(el) + " at " + Math.round(box.left) + ".." + Math.round(box.right));
  }
  const scrollWidth = document.documentElement.scrollWidth;
  return { overflow: scrollWidth > window.innerWidth ? { scrollWidth, innerWidth: window.innerWidth } : undefined, unreachable };
})()`;

async function contrastViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.addScriptTag({ content: axe.source });
  return page.evaluate(`axe.run(document, { runOnly: { type: "rule", values: ["color-contrast"] } }).then((run) =>
    run.violations.flatMap((v) => v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary.replace(/\\s+/g, " "))))`);
}

/** Every finding of one page, by width and colour scheme; empty when it looks right. */
async function inspect(page: Page, name: string, screenshots: boolean): Promise<Record<string, unknown>> {
  const found: Record<string, unknown> = {};
  const lang = await page.getAttribute("html", "lang");
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    const look = (await page.evaluate(LOOK_SCRIPT)) as Look;
    if (look.overflow) found[`${width}:overflow`] = look.overflow;
    if (look.unreachable.length) found[`${width}:unreachable`] = look.unreachable;
    if (screenshots && SCREENSHOTS) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${lang}-${width}.png`), fullPage: true });
    }
  }
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const violations = await contrastViolations(page);
    if (violations.length) found[`${colorScheme}:contrast`] = violations;
  }
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}

/** A computed style of the first element `selector` finds. */
function style(page: Page, selector: string, property: string): Promise<string> {
  return page.evaluate(
    ([s, p]) => {
      const dom = globalThis as unknown as {
        document: { querySelector(s: string): unknown };
        getComputedStyle(e: unknown): Record<string, string>;
      };
      return dom.getComputedStyle(dom.document.querySelector(s))[p];
    },
    [selector, property],
  );
}

async function contextIn(locale: string): Promise<BrowserContext> {
  // bypassCSP only lets the test inject axe; the CSP itself is checked below, on the wire.
  return browser().newContext({ locale, bypassCSP: true, viewport: { width: 1280, height: 800 } });
}

/**
 * Walks every hosted page and console section in `lang`, inspecting each: the sign-in pages
 * of an unsigned browser, then the consent of a third-party client, then the console and
 * the logout confirmation of a signed-in one.
 */
async function walk(
  lang: "en" | "ru",
  screenshots: boolean,
  brandOf?: Record<string, string>,
): Promise<Record<string, Record<string, unknown>>> {
  const locale = lang === "en" ? "en-US" : "ru-RU";
  const found: Record<string, Record<string, unknown>> = {};
  const look = async (page: Page, name: string) => {
    found[name] = await inspect(page, name, screenshots);
    // With `brandOf`, the text of each page's brand mark (console: with "Your account").
    if (brandOf) brandOf[name] = await page.locator(".brand").first().innerText();
  };

  const { config, redirectUri } = await relyingParty();
  const started = await startAuthorization(config, redirectUri, { ui_locales: lang });
  const context = await contextIn(locale);
  const page = await context.newPage();
  await page.goto(started.url.toString());
  expect(await page.getAttribute("html", "lang")).toBe(lang);
  await look(page, "sign-in");
  for (const [path, name] of [
    ["register", "register"],
    ["reset", "reset"],
    ["qr-signin", "qr-signin"],
  ]) {
    const href = await page.locator(`a[href^="/svc/oauth/${path}"]`).getAttribute("href");
    await page.goto(new URL(href ?? "", started.url).toString());
    await look(page, name);
    await page.goBack();
  }
  await page.getByLabel(/login|логин/i).fill("nobody-here");
  await page.getByLabel(/^(password|пароль)$/i).fill("wrong password");
  await submit(page);
  await page.getByRole("alert").waitFor();
  await look(page, "sign-in-refused");
  const unknown = new URL(started.url);
  unknown.searchParams.set("client_id", "no-such-client");
  await page.goto(unknown.toString());
  await look(page, "error");
  await page.goto(`${issuer}/oauth/device?user_code=BCDF-GHJK&ui_locales=${lang}`);
  await look(page, "device");

  // A third-party client asks for consent.
  const account = await seedAccount({}, PASSWORD);
  const party = await relyingParty({ registeredAs: "Notes Agent" });
  const asked = await startAuthorization(party.config, party.redirectUri, { ui_locales: lang });
  await page.goto(asked.url.toString());
  await page.getByLabel(/login|логин/i).fill(account.sub);
  await page.getByLabel(/^(password|пароль)$/i).fill(PASSWORD);
  await submit(page);
  await page.getByRole("button", { name: /allow|разрешить/i }).waitFor();
  await look(page, "consent");
  await context.close();

  // The console, signed in; then the logout confirmation (no id_token_hint: the user confirms).
  const signIn = await signedIn({ locale });
  const cookies = await signIn.context.cookies();
  await signIn.context.close();
  const consoleContext = await contextIn(locale);
  await consoleContext.addCookies(cookies);
  const consolePage = await consoleContext.newPage();
  for (const [path, name] of SECTIONS) {
    await consolePage.goto(at(path));
    expect(await consolePage.getAttribute("html", "lang")).toBe(lang);
    await consolePage.locator("nav").waitFor();
    await look(consolePage, name);
  }
  await consolePage.goto(`${issuer}/oauth/logout?ui_locales=${lang}`);
  await consolePage.locator('form[action="/svc/oauth/logout"]').waitFor();
  await look(consolePage, "logout");
  await consoleContext.close();
  return found;
}

const SECTIONS = [
  ["/svc/account", "account-profile"],
  ["/svc/account/password", "account-password"],
  ["/svc/account/sign-in-methods", "account-sign-in-methods"],
  ["/svc/account/devices", "account-devices"],
  ["/svc/account/apps", "account-apps"],
  ["/svc/account/linked", "account-linked"],
  ["/svc/account/activity", "account-activity"],
  ["/svc/account/data", "account-data"],
] as const;

const PAGES = [
  "sign-in",
  "register",
  "reset",
  "qr-signin",
  "sign-in-refused",
  "error",
  "device",
  "consent",
  ...SECTIONS.map(([, name]) => name),
  "logout",
];

/** Every page walked, none with a finding. */
function expectAllRight(found: Record<string, Record<string, unknown>>) {
  expect(Object.keys(found).sort()).toEqual([...PAGES].sort());
  expect(Object.fromEntries(Object.entries(found).filter(([, problems]) => Object.keys(problems).length > 0))).toEqual(
    {},
  );
}

describe("our own look", () => {
  it.each(["en", "ru"] as const)(
    "every page in %s fits 360 px and 1280 px, with readable colours in light and dark",
    async (lang) => {
      useSettings({});
      expectAllRight(await walk(lang, true));
    },
    WALK_TIMEOUT,
  );

  it("the pages' CSP admits no inline script or style, and nothing is themed without settings", async () => {
    useSettings({});
    const { config, redirectUri } = await relyingParty();
    const started = await startAuthorization(config, redirectUri, { ui_locales: "en" });
    const signInPage = await fetch(started.url);
    expect(signInPage.status).toBe(200);
    const csp = signInPage.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const markup = await signInPage.text();
    expect(markup).not.toMatch(/ style=|<style/);
    expect(markup).not.toContain("theme.css");
    expect(markup).not.toContain('class="brand-top"');
  });
});

describe("an operator's branding", () => {
  it("refuses colours that are not hex, and colours that are unreadable, at start", () => {
    for (const accent of ["red", "#12345", "#fff;}body{display:none", "rgb(0,0,0)"])
      expect(() => parseSettings({ branding: { colors: { accent } } })).toThrow(
        /SVC_CONFIG is invalid: .*branding\/colors\/accent/,
      );
    expect(() => parseSettings({ branding: { clients: { web: { colors: { accent: "#ffff00" } } } } })).toThrow(
      /branding\.clients\.web\.colors: accent #ffff00 on card #fff has contrast 1\.\d\d, below 4\.5/,
    );
    expect(() => parseSettings({ branding: { logo: "https://cdn.example/logo.png" } })).toThrow(/branding\/logo/);
    expect(() => parseSettings({ branding: { logo: 'data:image/svg+xml,"><script>' } })).toThrow(/branding\/logo/);
    expect(parseSettings({ branding: BRANDING }).branding).toEqual({ ...BRANDING, clients: {} });
  });

  it("the theme answers the colours and the operator's CSS, a client's colours with ?client", async () => {
    useSettings({ branding: { ...BRANDING, clients: { "notes-web": { colors: { accent: "#0b6e4f" } } } } });
    const theme = await fetch(`${issuer}/oauth/theme.css`);
    expect(theme.status).toBe(200);
    expect(theme.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(theme.headers.get("cache-control")).toBe("public, max-age=300");
    const css = await theme.text();
    expect(css).toContain("@media (prefers-color-scheme:light){:root{--accent:#6d28d9;--bg:#faf7f2;--text:#1f1a17}}");
    expect(css).toContain("@media (prefers-color-scheme:dark){:root{--accent:#c4b5fd;--on-accent:#1b1530}}");
    expect(css.trimEnd().endsWith(OPERATOR_CSS)).toBe(true);
    const client = await (await fetch(`${issuer}/oauth/theme.css?client=notes-web`)).text();
    expect(client).toContain("--accent:#0b6e4f");
    // An unknown client, or one named like an object's own key, gets the operator's theme.
    for (const other of ["nobody", "__proto__", "constructor"])
      expect(await (await fetch(`${issuer}/oauth/theme.css?client=${other}`)).text()).toBe(css);
  });

  it("a client's overrides apply on its sign-in page: its name, and its colours over the operator's", async () => {
    const party = await relyingParty();
    const plain = await relyingParty();
    useSettings({
      branding: {
        ...BRANDING,
        clients: { [party.clientId]: { productName: "Notes Pro", colors: { accent: "#0b6e4f" } } },
      },
    });
    const context = await contextIn("en-US");
    const page = await context.newPage();
    const accentOf = () => style(page, 'button[type="submit"]', "backgroundColor");
    await page.goto((await startAuthorization(party.config, party.redirectUri, { ui_locales: "en" })).url.toString());
    expect(await page.locator(".brand-top").innerText()).toBe("Notes Pro");
    expect(
      await page.locator('link[rel="stylesheet"]').evaluateAll((links) => links.map((l) => l.getAttribute("href"))),
    ).toEqual(["/svc/oauth/style.css", `/svc/oauth/theme.css?client=${encodeURIComponent(party.clientId)}`]);
    expect(await accentOf()).toBe("rgb(11, 110, 79)");
    await page.goto((await startAuthorization(plain.config, plain.redirectUri, { ui_locales: "en" })).url.toString());
    expect(await page.locator(".brand-top").innerText()).toBe("Acme Cloud");
    expect(await page.locator(".brand-top img").getAttribute("alt")).toBe("");
    expect(await accentOf()).toBe("rgb(109, 40, 217)");
    // The operator's CSS applies after ours.
    expect(await style(page, ".brand span", "letterSpacing")).not.toBe("normal");
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await accentOf()).toBe("rgb(196, 181, 253)");
    await context.close();
  });

  it(
    "every page fits and has readable colours in light and dark with the operator's theme",
    async () => {
      useSettings({ branding: BRANDING });
      const brands: Record<string, string> = {};
      expectAllRight(await walk("en", false, brands));
      const shown = (name: string) => (name.startsWith("account-") ? "Acme Cloud\nYour account" : "Acme Cloud");
      expect(brands).toEqual(Object.fromEntries(PAGES.map((name) => [name, shown(name)])));
    },
    WALK_TIMEOUT,
  );
});
