import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import CONSOLE_STYLE from "../../lib/compiled/console-app.css.txt";
import CONSOLE_SCRIPT from "../../lib/compiled/console-app.js.txt";
import { config, setEnvDefaults } from "../../lib/config";
import { services } from "../../lib/container";
import { GRANT } from "../../lib/domain/clients/client";
import { routeKey } from "../../lib/http/route";
import { prepareTable } from "../../lib/local/stack";
import { routes } from "../../lib/routes";
import { CONSOLE_CSP } from "../../lib/routes/console";
import { keys } from "../../lib/store/keys";
import { type RoundTripRow, succeeded } from "../../scripts/bench/round-trips";
import { startSampleProvider } from "../../scripts/bench/sample-provider";
import { ageSignIn } from "../support/account-console";
import {
  alteredAssembly,
  assemblyPort,
  type ServedAssembly,
  serveAssembly,
  synthesize,
} from "../support/cloud-assembly";
import { startTxtServer } from "../support/dns-server";
import { createClient, seedAccount, systemBearer, uniqueId } from "../support/fixtures";
import { PASSWORD, useHostedSignIn } from "../support/hosted-sign-in";
import { useSettings } from "../support/oauth-provider";
import { lastCode, outbox } from "../support/outbox";
import { expectVersionShape, firstSampleOfEachRoute, NO_2XX, PLACEHOLDER_VALUES } from "../support/route-samples";
import { sweepEverySample } from "../support/sample-sweep";
import { createPasskey } from "../support/soft-authenticator";
import { storedItem, storedItems } from "../support/stored";
import { totpCode } from "../support/totp-codes";
import { virtualAuthenticator } from "../support/virtual-authenticator";

/**
 * What `cdk deploy` ships, run here (issue 40): `npx cdk synth` builds the cloud assembly,
 * and every request goes through the template's routes to the bundled function they name,
 * in a Lambda-like process with the template's environment; every AWS call the bundle makes
 * is put to its role's policies by an IAM policy simulator before it reaches DynamoDB Local.
 */

// The data key secret's value is text; the sources' own data key is its bytes, so what one
// side seals (a seeded link's tokens) the other opens.
const DATA_KEY_TEXT = randomBytes(24).toString("base64url");
delete process.env.SVC_DATA_KEY;
setEnvDefaults({ SVC_DATA_KEY: Buffer.from(DATA_KEY_TEXT).toString("base64") });

/** Public routes whose every input is optional: there is nothing to refuse. */
const NOTHING_TO_REFUSE: Record<string, string> = {
  "hosted.logout": "a logout without parameters is valid: it ends the session and shows the signed-out page",
  "hosted.device": "without a code the page asks for one",
  "hosted.account-sign-in": "without ui_locales the sign-in page speaks the browser's language",
  "hosted.theme": "without client the operator's theme is served",
};

const ITEM_ACTIONS_WHY =
  "the store's item actions, granted alike to every function that reads (or writes) the table: its ports serve many routes, and a list per function drawn from one run would refuse the first path the samples miss";

/** Granted, and some function's samples never call it: why each stays (docs/deployment.md, least privilege). */
const UNUSED_BY_DESIGN: Record<string, string> = {
  ...Object.fromEntries(
    [
      "GetItem",
      "BatchGetItem",
      "Query",
      "PutItem",
      "UpdateItem",
      "DeleteItem",
      "BatchWriteItem",
      "ConditionCheckItem",
    ].map((action) => [`dynamodb:${action}`, ITEM_ACTIONS_WHY]),
  ),
  "sns:Publish":
    "SMS, where the account has only a phone or the operator sends codes by SMS: paths some functions' samples do not take",
  "ses:SendEmail":
    "e-mail, where the account has an address and the flow sends to it: paths some functions' samples do not take",
  "secretsmanager:GetSecretValue":
    "the data key, read on a function's first sealed value (the token endpoint's: a TOTP second factor, a DPoP nonce), which its samples may not reach",
  "dynamodb:ListStreams":
    "CDK's DynamoEventSource grants it on the stream's ARN, where IAM never matches it (the action takes no resource); the event source mapping is handed the ARN and does not list streams",
};

const CLIENT = { id: "assembly-app", secret: "assembly-app-secret-0123456789abcdef0123" };

// The gateway's port, held, and with it the issuer, before the hosted sign-in's relying parties are made.
const port = await assemblyPort("localhost");
const { browser, rp, relyingParty, startAuthorization, fillSignInForm, backAtClient, redeem } = await useHostedSignIn(
  undefined,
  config().issuer,
);

let dir = "";
let served: ServedAssembly;
let rows: RoundTripRow[] = [];
const jobResults: unknown[] = [];
const altered: string[] = [];
let provider: Awaited<ReturnType<typeof startSampleProvider>>;
// Verified domains' TXT records, served on loopback to the bundles' resolver setting.
const dns = await startTxtServer();

beforeAll(async () => {
  provider = await startSampleProvider();
  const settings = { ...provider.settings, organizations: { dnsResolvers: [dns.resolver], dnsTimeoutMs: 1000 } };
  useSettings(settings);
  dir = synthesize(settings);
  served = await serveAssembly(dir, port, DATA_KEY_TEXT, "localhost");
  // The table streams its changes, and the template's event source mapping feeds them to the events bundle.
  await prepareTable(config().dynamodbEndpoint ?? "", { stream: true });
  await served.stack.startEventSource();
  rows = await sweepEverySample(served.base, CLIENT);
  // The jobs function has no route: its scheduled events, as EventBridge sends them.
  const jobs = [...served.stack.assembly.functions.keys()].find((id) => id.startsWith("JobsFunction")) ?? "";
  for (const file of ["inactivity-lock", "key-rotation"]) {
    jobResults.push(
      await served.stack.invokeFunction(jobs, JSON.parse(readFileSync(`events/jobs/${file}.json`, "utf8"))),
    );
  }
  await settledEvents();
}, 600_000);

afterAll(async () => {
  await served?.stop();
  await provider?.stop();
  dns.close();
  // The assembly (about 40 MB of bundles) and the altered copies of its template.
  for (const folder of [dirname(dir), ...altered]) if (folder) rmSync(folder, { recursive: true, force: true });
});

/** An organization (a group of profile org) named `Org <id>`, made straight in the table. */
async function newOrganization(): Promise<string> {
  const id = uniqueId("org-");
  const at = Math.floor(Date.now() / 1000);
  await services().groups.create({
    id,
    profile: "org",
    name: `Org ${id}`,
    attributes: {},
    createdAt: at,
    updatedAt: at,
  });
  return id;
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** Waits until the events file stops growing: the last batches of the sweep's changes published. */
async function settledEvents(): Promise<void> {
  let size = -1;
  for (;;) {
    await new Promise((done) => setTimeout(done, 1500));
    const now = existsSync(config().events.file) ? statSync(config().events.file).size : 0;
    if (now === size) return;
    size = now;
  }
}

/** A sample event as an HTTP request to the served gateway, its placeholders filled with well-formed values. */
function requestOf(event: APIGatewayProxyEventV2): { url: string; init: RequestInit } {
  const fill = (text: string) =>
    text.replace(/\{\{(\w+)(?::[^}]*)?\}\}/g, (_, name: string) => PLACEHOLDER_VALUES[name] ?? "x");
  const [method] = event.routeKey.split(" ");
  const query = event.rawQueryString ? `?${fill(event.rawQueryString)}` : "";
  const headers = Object.fromEntries(
    Object.entries(event.headers ?? {}).map(([name, value]) => [name, fill(String(value))]),
  );
  delete headers.host;
  return {
    url: `${served.base}${fill(event.rawPath)}${query}`,
    init: {
      method,
      headers,
      redirect: "manual",
      ...(event.body &&
        !["GET", "HEAD"].includes(method) && {
          body: event.isBase64Encoded ? Buffer.from(event.body, "base64") : fill(event.body),
        }),
    },
  };
}

describe("the cloud assembly, run as deployed (lib/local/assembly)", () => {
  it("when synthesized, the template routes every route of the table to its endpoint group's function, and nothing else", () => {
    const assembly = served.stack.assembly;
    const byKey = new Map(assembly.routes.map((r) => [r.routeKey, r.functionId]));
    const wrong = routes
      .filter((route) => !byKey.get(routeKey(route))?.startsWith(`${pascal(route.fn)}Function`))
      .map((route) => `${routeKey(route)} -> ${byKey.get(routeKey(route)) ?? "missing"} (expected ${route.fn})`);
    expect(wrong).toEqual([]);
    expect(assembly.routes.length).toBe(routes.length + 1);
    expect(byKey.get("$default")).toMatch(/^MetaFunction/);
  });

  it("when every sample event runs through the bundles, every route answers as on success in at least one mode", () => {
    const answered = new Set(rows.filter(succeeded).map((r) => r.id));
    const missing = routes
      .map((route) => route.id)
      .filter((id) => !answered.has(id) && !(id in NO_2XX))
      .map((id) => rows.filter((r) => r.id === id).map((r) => `${r.id} ${r.mode}: ${r.status} (${r.sample})`));
    expect(missing).toEqual([]);
  });

  it("when the samples ran, no function's role refused a call its code made", () => {
    const denials = served.stack.endpoint.denials().map((d) => `${d.functionId}: ${d.action} on ${d.resource}`);
    expect(denials).toEqual([]);
    // The run did reach the roles: calls of each kind were put to the simulator and allowed.
    const actions = new Set(served.stack.endpoint.allowed().map((c) => c.action));
    for (const action of [
      "dynamodb:GetItem",
      "dynamodb:Query",
      "dynamodb:PutItem",
      "secretsmanager:GetSecretValue",
      "ses:SendEmail",
      "sns:Publish",
    ]) {
      expect(actions).toContain(action);
    }
  });

  it("when the admin console is opened at /svc/console/, the console bundle serves its page and files with the CSP and reads no table", async () => {
    const page = await fetch(`${served.base}/svc/console/`, { headers: { "accept-language": "ru-RU,ru;q=0.9" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    expect(html).toContain('<html lang="ru">');
    const files = [...html.matchAll(/(?:src|href)="(\/svc\/console\/app\.(?:js|css)\?v=[\w-]+)"/g)];
    expect(files).toHaveLength(2);
    for (const [, path] of files) {
      const file = await fetch(`${served.base}${path}`);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      expect(await file.text()).toBe(path.includes(".js") ? CONSOLE_SCRIPT : CONSOLE_STYLE);
    }
    const calls = served.stack.endpoint.allowed().filter((c) => c.functionId.startsWith("ConsoleFunction"));
    expect(calls).toEqual([]);
  });

  it("when the scheduled events reach the jobs bundle, each job runs through its role", () => {
    expect(jobResults).toEqual([
      expect.objectContaining({ job: "inactivity-lock" }),
      expect.objectContaining({ job: "key-rotation" }),
    ]);
  });

  it("when the sweep's changes reach the table's stream, the events bundle publishes them through its role", () => {
    const events = readFileSync(config().events.file, "utf8").split("\n").filter(Boolean);
    expect(events.length).toBeGreaterThan(10);
    expect(JSON.parse(events[0])).toMatchObject({ specversion: "1.0", type: expect.any(String) });
    const calls = served.stack.endpoint.allowed().filter((c) => c.functionId.startsWith("EventsFunction"));
    expect(calls.map((c) => c.action)).toEqual(expect.arrayContaining(["dynamodb:GetRecords", "events:PutEvents"]));
  });

  it("when a route is called without its credentials or with a broken body, the bundle refuses it in the route's shape", async () => {
    const samples = firstSampleOfEachRoute();
    const unrefused: string[] = [];
    for (const route of routes) {
      const file = samples.get(routeKey(route));
      if (!file) continue;
      const event = JSON.parse(readFileSync(file, "utf8")) as APIGatewayProxyEventV2;
      const { url, init } = requestOf(event);
      const headers = init.headers as Record<string, string>;
      delete headers.authorization;
      delete headers.cookie;
      let target = url;
      if (route.auth === "none") {
        // A public route is refused for its input: a broken body, or no query at all.
        if (route.request?.body) init.body = route.request.body.contentType === "json" ? "{" : "%zz=%";
        else if (route.request?.query && !(route.id in NOTHING_TO_REFUSE)) target = url.replace(/\?.*$/, "");
        else continue;
      }
      const response = await fetch(target, init);
      const body = await response.text();
      if (response.status < 400 || response.status >= 500) {
        unrefused.push(`${route.id}: ${response.status} ${body.slice(0, 120)}`);
        continue;
      }
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body);
      } catch {}
      expectVersionShape(route.version, response.status, json, body);
    }
    expect(unrefused).toEqual([]);
  });

  // Cold starts of the bundles the flows reach first, on two cores shared with the rest of the suite.
  describe("when a browser or an authenticator drives the routes the samples cannot bring to success", {
    timeout: 90_000,
  }, () => {
    it("when a person signs in to a third-party client, consents, and opens the account console, the bundles answer each step", async () => {
      const account = await seedAccount({}, PASSWORD);
      const { config: party, redirectUri } = await relyingParty({ firstParty: false });
      const started = await startAuthorization(party, redirectUri);
      const { context, page } = await fillSignInForm(started.url, account.sub);
      // hosted.consent
      await page.getByRole("button", { name: "Allow" }).click();
      const callback = await backAtClient(page);
      const tokens = await redeem(party, callback, started);
      expect(tokens.claims()?.sub).toBe(account.sub);
      // hosted.account (the old address), account.methods and account.recovery-codes
      await page.goto(`${config().issuer}/oauth/account`);
      await page.getByRole("button", { name: "Create new recovery codes" }).click();
      await page.getByText("Save these codes now").waitFor();
      expect(await page.locator("ol.codes code").allTextContents()).toHaveLength(10);
      await context.close();
    });

    it("when a member picks an organization on the organization page, the bundles answer it with a code for it", async () => {
      const account = await seedAccount({}, PASSWORD);
      const id = await newOrganization();
      await services().groups.addMembers("org", id, [account.sub], Math.floor(Date.now() / 1000));
      const { config: party, redirectUri } = await relyingParty();
      const started = await startAuthorization(party, redirectUri, { scope: "openid organization" });
      const { context, page } = await fillSignInForm(started.url, account.sub);
      // hosted.organization
      await page.getByRole("button", { name: `Org ${id}` }).click();
      const callback = await backAtClient(page);
      const tokens = await redeem(party, callback, started);
      expect(tokens.claims()).toMatchObject({ sub: account.sub, org_id: id, org_roles: [] });
      await context.close();
    });

    it("when an organization invites an address, its link opens the invitation page and another invitation is revoked, through the bundles", async () => {
      const id = await newOrganization();
      const authorization = await systemBearer(["svc_groups"]);
      const invite = (email: string) =>
        fetch(`${config().issuer}/api/v3/orgs/${id}/invitations`, {
          method: "POST",
          headers: { authorization, "content-type": "application/json" },
          body: JSON.stringify({ email, language: "en" }),
        });
      // orgs.invite
      const email = `${uniqueId("invitee")}@example.com`;
      expect((await invite(email)).status).toBe(201);
      const link = outbox(email)
        .at(-1)
        ?.text.match(/\S+\/oauth\/invitation\?token=[A-Za-z0-9_-]+/)?.[0] as string;
      // hosted.invitation
      const context = await browser().newContext({ locale: "en-US" });
      const page = await context.newPage();
      expect((await page.goto(link))?.status()).toBe(200);
      await page.getByText(`Org ${id} invites you to join the organization.`).waitFor();
      await context.close();
      // orgs.invitation-revoke
      const other = (await (await invite(`${uniqueId("invitee")}@example.com`)).json()) as { invitationId: string };
      const revoked = await fetch(`${config().issuer}/api/v3/orgs/${id}/invitations/${other.invitationId}`, {
        method: "DELETE",
        headers: { authorization },
      });
      expect(revoked.status).toBe(204);
    });

    it("when an organization claims a domain and publishes its TXT record, the bundles verify it", async () => {
      const id = await newOrganization();
      const authorization = await systemBearer(["svc_groups"]);
      const domain = `${uniqueId("d")}.example`.toLowerCase();
      const claimed = await fetch(`${config().issuer}/api/v3/orgs/${id}/domains`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ domain }),
      });
      const claim = (await claimed.json()) as { txt: { name: string; value: string } };
      dns.zone.set(claim.txt.name, [claim.txt.value]);
      // orgs.domain-verify
      const verified = await fetch(`${config().issuer}/api/v3/orgs/${id}/domains/${domain}/verify`, {
        method: "POST",
        headers: { authorization },
      });
      expect([verified.status, ((await verified.json()) as { state: string }).state]).toEqual([200, "verified"]);
    });

    it("when an organization configures its own provider, a request naming it is offered that provider, through the bundles", async () => {
      const id = await newOrganization();
      const authorization = await systemBearer(["svc_groups"]);
      const sso = (method: string, body?: object) =>
        fetch(`${config().issuer}/api/v3/orgs/${id}/sso`, {
          method,
          headers: { authorization, ...(body && { "content-type": "application/json" }) },
          ...(body && { body: JSON.stringify(body) }),
        });
      // orgs.sso-put, orgs.sso-get
      const connection = {
        issuer: provider.url,
        clientId: "org-at-idp",
        clientSecret: "org-idp-secret-0123456789abcdef",
      };
      expect((await sso("PUT", connection)).status).toBe(200);
      const read = await sso("GET");
      expect([read.status, ((await read.json()) as { issuer: string }).issuer]).toEqual([200, provider.url]);
      // hosted.org-sso-organization: the sign-in page of a request naming it links to the provider
      const { config: party, redirectUri } = await relyingParty();
      const started = await startAuthorization(party, redirectUri, { organization: id });
      const context = await browser().newContext({ locale: "en-US" });
      const page = await context.newPage();
      await page.goto(started.url.toString());
      const href = await page
        .getByRole("link", { name: "Sign in with your organization's account" })
        .getAttribute("href");
      const toProvider = await page.request.get(new URL(href as string, page.url()).toString(), { maxRedirects: 0 });
      expect([toProvider.status(), toProvider.headers().location?.startsWith(`${provider.url}/authorize?`)]).toEqual([
        303,
        true,
      ]);
      await context.close();
      // orgs.sso-delete
      expect((await sso("DELETE")).status).toBe(204);
    });

    it("when a device asks and the person types its code on the device page, the device gets the tokens", async () => {
      const account = await seedAccount({}, PASSWORD);
      const registered = await createClient(["svc_api_user"], {
        public: true,
        grantTypes: [GRANT.deviceCode],
        redirectUris: ["http://127.0.0.1/cb"],
      });
      const device = await oidc.discovery(new URL(config().issuer), registered.clientId, {}, oidc.None(), {
        execute: [oidc.allowInsecureRequests],
      });
      const started = await oidc.initiateDeviceAuthorization(device, { scope: "openid svc_api_user" });
      const context = await browser().newContext({ locale: "en-US" });
      const page = await context.newPage();
      await page.goto(`${config().issuer}/oauth/device`);
      // hosted.device-code
      await page.getByLabel("Code from the device").fill(started.user_code);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByLabel(/login/i).fill(account.sub);
      await page.getByLabel(/^password$/i).fill(PASSWORD);
      await page.getByRole("button", { name: /^sign in$/i }).click();
      await page.getByRole("button", { name: "Allow" }).click();
      await page.getByText("Done: your device is signed in.").waitFor();
      await context.close();
      const tokens = await oidc.pollDeviceAuthorizationGrant(device, started);
      expect(tokens.claims()?.sub).toBe(account.sub);
    });

    it("when a person links the provider's account and confirms with the password, then signs in with the provider, the bundles answer each step", async () => {
      const account = await seedAccount({}, PASSWORD);
      const done = `${rp.url()}/fa-done`;
      const web = await createClient(["svc_api_sys_ufa"], { redirectUris: [done] });
      const bind = await fetch(`${served.base}/svc/api/v2/users/current/fa/bind`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${account.sub}:${PASSWORD}`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ fp: "oidc:mock", callback: done, clientId: web.clientId }),
      });
      expect(bind.status).toBe(200);
      const context = await browser().newContext({ locale: "en-US" });
      const page = await context.newPage();
      // The provider answers at once; federation.callback asks the owner to confirm (federation.confirm).
      await page.goto(String(((await bind.json()) as { redirectTo: string }).redirectTo));
      // A v2 route: the page speaks the configured default language, Russian.
      await page.getByLabel("Пароль учётной записи").fill(PASSWORD);
      await page.getByRole("button", { name: "Привязать" }).click();
      await page.waitForURL((url) => url.toString().startsWith(done));
      expect(await services().federation.listLinks(account.sub)).toEqual([
        expect.objectContaining({ fpType: "oidc", fpName: "mock" }),
      ]);
      await context.close();

      // hosted.federated-callback: the linked provider account signs the person in.
      const { config: party, redirectUri } = await relyingParty();
      const started = await startAuthorization(party, redirectUri);
      const signIn = await browser().newContext({ locale: "en-US" });
      const signInPage = await signIn.newPage();
      await signInPage.goto(started.url.toString());
      await signInPage.getByRole("link", { name: "Sign in with mock" }).click();
      const callback = await backAtClient(signInPage);
      await signIn.close();
      const tokens = await redeem(party, callback, started);
      expect(tokens.claims()).toMatchObject({ sub: account.sub, amr: ["fed"] });
    });

    it("when a person manages sign-in methods in the account console and confirms it's them, the account bundle answers each step", async () => {
      const account = await seedAccount({}, PASSWORD);
      const { config: party, redirectUri } = await relyingParty();
      const started = await startAuthorization(party, redirectUri);
      const { context, page } = await fillSignInForm(started.url, account.sub);
      await backAtClient(page);
      const authenticator = await virtualAuthenticator(context, page);
      const done = (text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();
      await page.goto(`${config().issuer}/account/sign-in-methods`);
      // account.passkey-add, account.passkey-rename
      await page.getByLabel("Name of the new passkey").fill("laptop");
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await done("The passkey was added.");
      expect(await authenticator.credentials()).toHaveLength(1);
      await page.getByLabel("New name").fill("work laptop");
      await page.getByRole("button", { name: "Rename laptop" }).click();
      await done("The passkey was renamed.");
      // account.authenticator-start, account.authenticator-confirm
      await page.getByRole("button", { name: "Set up an authenticator app" }).click();
      const secret = (await page.locator("main code").textContent()) ?? "";
      await page.getByLabel("Code from the app").fill(totpCode(secret));
      await page.getByRole("button", { name: "Turn on" }).click();
      await done("The authenticator app is on.");
      expect(await storedItems(account.sub, keys.totpPrefix)).toHaveLength(1);
      // account.second-factor, on and off
      await page.getByRole("button", { name: "Ask at every sign-in" }).click();
      await done("Every sign-in now asks for a second step.");
      await page.getByRole("button", { name: "Stop asking at every sign-in" }).click();
      await done("no longer asks");
      // account.authenticator-delete
      await page.getByRole("button", { name: /^Remove TOTP/ }).click();
      await done("The authenticator app was removed.");
      // An older sign-in: account.confirm, account.confirm-password, then account.confirm-passkey.
      await ageSignIn(account.sub, 11 * 60);
      await page.getByRole("button", { name: "Remove work laptop" }).click();
      await page.getByLabel("Your password").fill(PASSWORD);
      await page.getByRole("button", { name: "Confirm", exact: true }).click();
      await done("Now make the change again.");
      await ageSignIn(account.sub, 11 * 60);
      await page.getByRole("button", { name: "Remove work laptop" }).click();
      await page.getByRole("button", { name: "Confirm with a passkey" }).click();
      await done("Now make the change again.");
      // account.passkey-delete
      await page.getByRole("button", { name: "Remove work laptop" }).click();
      await done("The passkey was removed.");
      expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
      await context.close();
    });

    it("when a person walks the account console's other sections, the account bundle answers each step", async () => {
      const account = await seedAccount({}, PASSWORD);
      // A third-party client the person allows, so the console lists an application.
      const { config: party, redirectUri } = await relyingParty({ firstParty: false });
      const started = await startAuthorization(party, redirectUri);
      const { context, page } = await fillSignInForm(started.url, account.sub);
      await page.getByRole("button", { name: "Allow" }).click();
      await backAtClient(page);
      const done = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text }).waitFor();
      const at = (path: string) => `${config().issuer}/account${path}`;
      // account.profile, account.names
      await page.goto(at(""));
      await page.getByLabel("Given name").fill("Anna");
      await page.getByRole("button", { name: "Save name" }).click();
      await done("Your name was saved.");
      // account.email-change, account.email-confirm, account.phone-change, account.phone-confirm
      const address = `${uniqueId("new")}@example.com`;
      await page.getByLabel("New e-mail address").fill(address);
      await page.getByRole("button", { name: "Change e-mail" }).click();
      await page.getByLabel(`Code sent to ${address}`).fill(lastCode(address));
      await page.getByRole("button", { name: "Confirm e-mail" }).click();
      await done("Your e-mail address was changed and is confirmed.");
      const phone = `79${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;
      await page.getByLabel("New phone number").fill(`+${phone}`);
      await page.getByRole("button", { name: "Change phone" }).click();
      await page.getByLabel(`Code sent to ${phone}`).fill(lastCode(phone));
      await page.getByRole("button", { name: "Confirm phone" }).click();
      await done("Your phone number was changed and is confirmed.");
      // account.password, account.password-change
      await page.goto(at("/password"));
      await page.getByLabel("New password", { exact: true }).fill(`${PASSWORD} again`);
      await page.getByLabel("Repeat the new password").fill(`${PASSWORD} again`);
      await page.getByRole("button", { name: "Change password" }).click();
      await done("Your password was changed.");
      // account.devices, account.device-sign-out, account.devices-sign-out-others: two more browsers sign in.
      const elsewhere = [];
      for (const _ of [1, 2]) {
        const other = await fillSignInForm(
          (await startAuthorization(party, redirectUri)).url,
          account.sub,
          `${PASSWORD} again`,
        );
        await backAtClient(other.page);
        elsewhere.push(other);
      }
      await page.goto(at("/devices"));
      await page
        .getByRole("button", { name: /^Sign out (?!of this device|everywhere)/ })
        .first()
        .click();
      await done("The device was signed out.");
      await page.getByRole("button", { name: "Sign out everywhere else" }).click();
      await done("You were signed out everywhere else.");
      for (const other of elsewhere) {
        expect((await other.page.goto(at("/devices")))?.status()).toBe(401);
        await other.context.close();
      }
      // account.apps, account.app-remove
      await page.goto(at("/apps"));
      await page.getByRole("button", { name: /^Remove access for / }).click();
      await done("The application's access was removed.");
      // account.linked, account.link-start (the provider answers at once), account.link-remove
      await page.goto(at("/linked"));
      // Another person at the provider than the one an earlier flow linked.
      provider.signInAs(uniqueId("mock-person-"));
      await page.getByRole("button", { name: "Link a mock account" }).click();
      await done("The account was linked.");
      provider.signInAs(undefined);
      await page.getByRole("button", { name: /^Unlink mock/ }).click();
      await done("The account was unlinked.");
      // account.activity, account.data, account.data-export
      await page.goto(at("/activity"));
      expect(await page.locator("main ul.items > li").count()).toBeGreaterThan(3);
      await page.goto(at("/data"));
      const exported = await page.request.get(at("/data/export"));
      expect(exported.status()).toBe(200);
      expect(JSON.stringify(await exported.json())).toContain(address);
      // account.not-me: every session ends.
      await page.goto(at("/activity"));
      await page.getByRole("button", { name: "This wasn't me" }).click();
      await page.getByRole("heading", { name: "You are signed out everywhere" }).waitFor();
      expect(await storedItems(account.sub, keys.sessionPrefix)).toEqual([]);
      await context.close();
      // account.data-delete, by another person.
      const leaving = await seedAccount({}, PASSWORD);
      const gone = await fillSignInForm((await startAuthorization(party, redirectUri)).url, leaving.sub);
      await gone.page.getByRole("button", { name: "Allow" }).click();
      await backAtClient(gone.page);
      await gone.page.goto(at("/data"));
      await gone.page.getByLabel("I understand that my account and its data will be deleted").check();
      await gone.page.getByRole("button", { name: "Delete my account" }).click();
      await gone.page.getByRole("heading", { name: "Your account was deleted" }).waitFor();
      expect(await storedItem(keys.userProfile(leaving.sub))).toBeUndefined();
      await gone.context.close();
    });

    it("when an authenticator enrols a passkey over the API, it is attached, renamed and deleted through the security bundle", async () => {
      const account = await seedAccount();
      const authorization = await systemBearer(["svc_api_sys_usec_chg"], CLIENT.id);
      const passkeys = `${served.base}/svc/api/v3/users/${account.sub}/passkeys`;
      const call = async (path: string, method: string, body?: unknown) => {
        const response = await fetch(`${passkeys}${path}`, {
          method,
          headers: { authorization, ...(body !== undefined && { "content-type": "application/json" }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown> };
      };
      const options = await call("/attach/options", "GET");
      expect(options.status).toBe(200);
      // The default relying party: the issuer's host and origin.
      const created = createPasskey(options.json, new URL(config().issuer).origin, { synced: true });
      // security.passkey-attach, security.passkey-rename, security.passkey-delete
      const attached = await call("/attach", "POST", { response: created.response, name: "laptop" });
      expect(attached).toMatchObject({ status: 201, json: { name: "laptop" } });
      const id = encodeURIComponent(String(attached.json.id));
      expect(await call(`/${id}`, "POST", { name: "work laptop" })).toMatchObject({
        status: 200,
        json: { name: "work laptop" },
      });
      expect((await call(`/${id}`, "DELETE")).status).toBeLessThan(300);
      expect(await storedItems(account.sub, keys.passkeyPrefix)).toEqual([]);
    });
  });

  describe("when the template is broken on purpose, the run shows it", { timeout: 90_000 }, () => {
    type Template = Parameters<Parameters<typeof alteredAssembly>[2]>[0];

    function idOf(template: Template, type: string, prefix: string): string {
      const id = Object.keys(template.Resources).find(
        (k) => template.Resources[k].Type === type && k.startsWith(prefix),
      );
      if (!id) throw new Error(`no ${type} ${prefix}`);
      return id;
    }

    /** One request to a copy of the assembly with `change` made, on a gateway of its own. */
    async function underBreak(change: (template: Template) => void, call: (base: string) => Promise<Response>) {
      const broken = await serveAssembly(alteredAssembly(dir, config().issuer, change), undefined, DATA_KEY_TEXT);
      try {
        const response = await call(broken.base);
        return {
          status: response.status,
          body: await response.text(),
          denials: broken.stack.endpoint.denials(),
          coldStarts: broken.stack.containers.coldStarts(),
        };
      } finally {
        await broken.stop();
      }
    }

    const getUser = async (base: string) =>
      fetch(`${base}/svc/api/v3/users/sample-user`, {
        headers: { authorization: await systemBearer(["svc_api_sys_users"], CLIENT.id) },
      });

    it("when the route is intact, the user is read through the users function", async () => {
      const response = await getUser(served.base);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ sub: "sample-user" });
    });

    it("when a route points at another function, the request reaches that one and not the user", async () => {
      const key = "GET /svc/api/v3/users/{subjectId}";
      const result = await underBreak((template) => {
        const route = Object.values(template.Resources).find((r) => r.Properties?.RouteKey === key);
        if (!route) throw new Error(`no route ${key}`);
        const tokenIntegration = idOf(template, "AWS::ApiGatewayV2::Integration", "Apitokenissue");
        route.Properties.Target = { "Fn::Join": ["", ["integrations/", { Ref: tokenIntegration }]] };
      }, getUser);
      // The token function's own answer for a path it has no route for.
      expect(result.status).toBe(404);
      expect(JSON.parse(result.body)).toMatchObject({ error: "not_found" });
      expect(result.body).not.toContain("Ivanova");
      expect(Object.keys(result.coldStarts)).toEqual([expect.stringMatching(/^TokenFunction/)]);
    });

    it("when a function loses an environment variable its bundle reads, its calls go astray and its role refuses them", async () => {
      const result = await underBreak((template) => {
        const fn = template.Resources[idOf(template, "AWS::Lambda::Function", "UsersFunction")];
        delete (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.TABLE_NAME;
      }, getUser);
      expect(result.status).toBe(500);
      expect(result.body).not.toContain("AccessDenied");
      // Without TABLE_NAME the bundle reads its default table, which the role does not name.
      expect(result.denials).toContainEqual(
        expect.objectContaining({
          action: expect.stringMatching(/^dynamodb:(GetItem|Query)$/),
          resource: expect.stringMatching(/:table\/svc-identity$/),
        }),
      );
    });

    it("when a role loses an action the code uses, the call is refused with that action and resource", async () => {
      const table = `arn:aws:dynamodb:${config().region}:123456789012:table/${config().tableName}`;
      const result = await underBreak((template) => {
        const policy = template.Resources[idOf(template, "AWS::IAM::Policy", "UsersFunctionRoleDefaultPolicy")];
        const statements = (policy.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[] }> })
          .Statement;
        for (const statement of statements) {
          if (Array.isArray(statement.Action))
            statement.Action = statement.Action.filter((a) => a !== "dynamodb:GetItem");
        }
      }, getUser);
      // An internal error to the caller, the refused call in the run's denials.
      expect(result.status).toBe(500);
      expect(result.body).not.toContain("dynamodb");
      expect(result.denials).toEqual([
        expect.objectContaining({ action: "dynamodb:GetItem", resource: table, decision: "ImplicitlyDenied" }),
      ]);
    });
  });

  it("when every flow has run, every route of the table answered as on success through the bundles", () => {
    const swept = new Set(rows.filter(succeeded).map((row) => row.id));
    const missing = routes
      .filter((route) => !swept.has(route.id))
      .filter((route) => !(served.answered.get(routeKey(route)) ?? []).some((status) => status < 400))
      .map((route) => `${route.id}: ${served.answered.get(routeKey(route))?.join(", ") ?? "never called"}`);
    expect(missing).toEqual([]);
  });

  it("when the run ends, every permission a role grants was used by a call, or its reason to stay is written down", () => {
    const gaps = served.stack.permissionGaps();
    const name = (functionId: string) => functionId.replace(/Function[0-9A-F]{8}$/, "").toLowerCase();
    console.log(
      [
        "| function | granted actions used by the run | granted, never used |",
        "|---|---|---|",
        ...gaps.map((g) => `| ${name(g.functionId)} | ${g.used.join(", ")} | ${g.unused.join(", ") || "-"} |`),
      ].join("\n"),
    );
    const unexplained = gaps.flatMap((g) =>
      g.unused.filter((action) => !(action in UNUSED_BY_DESIGN)).map((action) => `${name(g.functionId)}: ${action}`),
    );
    expect(unexplained).toEqual([]);
  });
});
