import { route } from "../../http/route";
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

export const staticFileRoutes = () => [script, styleSheet];
