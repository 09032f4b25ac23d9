import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { filterFor, pagedQuery } from "../../console/rql";
import { parseRql } from "../../lib/domain/search/rql";
import { CONSOLE_CSP } from "../../lib/routes/console";
import { CONSOLE_OUTPUTS, staleConsoleFiles } from "../../scripts/build-console";
import { useSettings } from "../support/oauth-provider";
import { request } from "../support/requests";

/** The admin console's files as the console function serves them (docs/console.md). */

const INDEX = "events/console/index.json";

/** What the shipped JavaScript may weigh (docs/decisions/console-ui.md): minified, and gzipped as sent. */
const SCRIPT_BUDGET = { kib: 70, gzippedKib: 24 };

describe("the console's page", () => {
  it("answers the shell with the exact CSP, nosniff, no referrer, and never a cached copy", async () => {
    const page = await request("console", INDEX);
    expect(page.statusCode).toBe(200);
    expect(page.headers).toMatchObject({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy":
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-cache",
    });
    expect(CONSOLE_CSP).not.toContain("unsafe-inline");
  });

  it("loads its script as a module from the console's own files, and holds no inline script or style", async () => {
    const { body } = await request("console", INDEX);
    const scripts = [...body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0][1]).toMatch(/type="module" src="\/svc\/console\/app\.js\?v=[\w-]{12}"/);
    expect(scripts[0][2]).toBe("");
    expect(body).toMatch(/<link rel="stylesheet" href="\/svc\/console\/app\.css\?v=[\w-]{12}">/);
    expect(body).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(body).toContain('<div id="app">');
  });

  it.each([
    ["en-GB,en;q=0.9,ru;q=0.8", "ru", "en"],
    ["ru-RU,ru;q=0.9,en;q=0.8", "en", "ru"],
    ["de-DE,de;q=0.9,en;q=0.5", "ru", "en"],
    ["fr-FR", "ru", "ru"],
    ["fr-FR", "en", "en"],
  ])(
    "when the browser asks for %s and the default language is %s, the page's lang is %s",
    async (accept, fallback, lang) => {
      const page = await withDefaultLanguage(fallback, () =>
        request("console", INDEX, { headers: { "accept-language": accept } }),
      );
      expect(page.body).toContain(`<html lang="${lang}">`);
    },
  );
});

/** Runs `fn` with settings whose defaultLanguage is `lang`, then puts the file's settings back. */
async function withDefaultLanguage<T>(lang: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.SVC_CONFIG_JSON;
  useSettings({ ...JSON.parse(before ?? "{}"), defaultLanguage: lang });
  try {
    return await fn();
  } finally {
    useSettings(JSON.parse(before ?? "{}"));
  }
}

describe("the console's script and style sheet", () => {
  it.each([
    ["events/console/script.json", "text/javascript; charset=utf-8", CONSOLE_OUTPUTS.script],
    ["events/console/style.json", "text/css; charset=utf-8", CONSOLE_OUTPUTS.style],
  ])("%s answers the committed bundle, cached for a year under its versioned address", async (sample, type, file) => {
    const answer = await request("console", sample);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers).toMatchObject({
      "content-type": type,
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
      "content-security-policy": CONSOLE_CSP,
    });
    expect(answer.body).toBe(readFileSync(file, "utf8"));
  });

  it("when console/ changes, the committed bundle must be built again (npm run build-console)", () => {
    expect(staleConsoleFiles(), "run npm run build-console and commit lib/compiled").toEqual([]);
    const texts = readdirSync("lib/compiled").filter((name) => name.endsWith(".txt"));
    expect(texts.sort()).toEqual(["console-app.css.txt", "console-app.js.txt"]);
  });

  it("when the script grows past its budget, this fails (docs/decisions/console-ui.md)", () => {
    const script = readFileSync(CONSOLE_OUTPUTS.script);
    expect(script.length / 1024).toBeLessThan(SCRIPT_BUDGET.kib);
    expect(gzipSync(script).length / 1024).toBeLessThan(SCRIPT_BUDGET.gzippedKib);
  });

  it("keeps tokens out of web storage: the bundle writes only the sign-in round trip to sessionStorage, never localStorage or cookies", () => {
    const script = readFileSync(CONSOLE_OUTPUTS.script, "utf8");
    expect(script).not.toMatch(/localStorage|document\.cookie|indexedDB/);
    expect(script.match(/sessionStorage\.setItem/g)).toHaveLength(1);
  });
});

describe("the console's user search", () => {
  it("turns an address into an e-mail lookup, digits into a phone lookup, and other text into names or an id", () => {
    expect(parseRql(filterFor(" Anna@Example.com ")!).filter).toEqual({
      op: "eq",
      name: "email",
      value: { type: "string", value: "Anna@Example.com" },
    });
    expect(parseRql(filterFor("+7 (999) 123-45-67")!).filter).toEqual({
      op: "eq",
      name: "phone_number",
      value: { type: "string", value: "79991234567" },
    });
    const names = parseRql(filterFor("Smith&Sons (UK)")!).filter as { op: string; args: { name: string }[] };
    expect(names.op).toBe("or");
    expect(names.args.map((a) => a.name)).toEqual(["sub", "family_name", "given_name", "middle_name"]);
    expect(filterFor("   ")).toBeUndefined();
  });

  it("pages with one more than shown, at the top level where the search accepts limit", () => {
    const query = parseRql(pagedQuery(filterFor("Ivanova")!, 2, 20));
    expect(query).toMatchObject({ limit: 21, offset: 40 });
    expect(parseRql(pagedQuery("a=string:1|b=string:2", 0, 20))).toMatchObject({ limit: 21, offset: 0 });
  });
});
