import { config } from "../../config";
import { route } from "../../http/route";
import { THEME_PATH, themeStyleSheet } from "../../pages/brand";
import { STYLE_PATH } from "../../pages/html";
import SCRIPT from "../../pages/passkeys-script.txt";
import STYLE from "../../pages/style.css.txt";

/** The files every page we serve loads from our own origin, so the CSP admits nothing inline. */

/** Static files of the pages change only with a deployment: browsers may keep them an hour. */
const STATIC_HEADERS = { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" } as const;

const script = route({
  id: "hosted.passkeys-script",
  method: "GET",
  path: "/svc/oauth/passkeys.js",
  version: "page",
  auth: "none",
  summary: "The hosted pages' passkey script (WebAuthn ceremonies, passkey autofill)",
  tags: ["sign-in"],
  responses: { 200: { description: "JavaScript", contentType: "text/javascript" } },
  handler: async () => ({
    statusCode: 200,
    headers: { "content-type": "text/javascript; charset=utf-8", ...STATIC_HEADERS },
    body: SCRIPT,
  }),
});

const styleSheet = route({
  id: "hosted.style",
  method: "GET",
  path: STYLE_PATH,
  version: "page",
  auth: "none",
  summary: "The style sheet of the hosted pages and the account console",
  tags: ["sign-in"],
  responses: { 200: { description: "CSS", contentType: "text/css" } },
  handler: async () => ({
    statusCode: 200,
    headers: { "content-type": "text/css; charset=utf-8", ...STATIC_HEADERS },
    body: STYLE,
  }),
});

/** The operator's branding changes with a deployment too, but a new look should show within minutes. */
const THEME_HEADERS = { "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" } as const;

const themeSheet = route({
  id: "hosted.theme",
  method: "GET",
  path: THEME_PATH,
  version: "page",
  auth: "none",
  summary: "The operator's theme: the configured colours and extra CSS, linked after the pages' style sheet",
  description:
    "Built from the branding settings (docs/configuration.md#branding): the colours as CSS custom properties (light ones in the light scheme, dark ones in the dark), then the operator's stylesheet. With client, that client's colours override the operator's; an unknown client gets the operator's theme.",
  tags: ["sign-in"],
  request: {
    query: {
      type: "object",
      properties: { client: { type: "string", maxLength: 512, description: "a client whose colours apply" } },
    },
  },
  responses: { 200: { description: "CSS", contentType: "text/css" } },
  handler: async (call) => ({
    statusCode: 200,
    headers: { "content-type": "text/css; charset=utf-8", ...THEME_HEADERS },
    body: themeStyleSheet(config().settings.branding, call.query.client),
  }),
});

export const staticFileRoutes = () => [script, styleSheet, themeSheet];
