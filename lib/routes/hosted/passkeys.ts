import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { route } from "../../http/route";
import { answeringForm, credentialOf, hostedForm, originOf } from "./answers";
import { answerDecision } from "./decisions";
import type { HostedUseCases } from "./use-cases";

/** Passkeys on the sign-in page (docs/passkeys.md): sign-in with a passkey alone. */

const passkeySignInForm = hostedForm({ credential: { type: "string", maxLength: 16384 } });

const passkeySignIn = (uc: HostedUseCases) =>
  route({
    id: "hosted.passkey-sign-in",
    method: "POST",
    path: "/svc/oauth/passkey",
    version: "page",
    auth: "none",
    summary: "Sign in with a passkey alone (discoverable credential, user verified)",
    description:
      "credential is the JSON of the browser's answer to the sign-in page's request options, whose challenge is bound to the browser's CSRF token and taken once. The passkey's account is signed in (amr hwk, user, mfa), also when it requires a second factor.",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: passkeySignInForm, required: true } },
    responses: {
      200: { description: "The sign-in page with why the passkey did not sign in", contentType: "text/html" },
      303: { description: "Signed in: on to the client" },
      400: { description: "Expired or forged form", contentType: "text/html" },
    },
    handler: (call) =>
      answeringForm(call, call.body, async (opened, lang) => {
        const request = await uc.authorization.loadRequest(opened.query);
        const credential = credentialOf<AuthenticationResponseJSON>(call.body.credential);
        const origin = originOf(call, lang);
        const decision = await uc.signIn.passkey(request, credential, opened.state.csrf, origin);
        return answerDecision(call, uc, { ...opened, lang }, decision);
      }),
  });

export const passkeyRoutes = (uc: HostedUseCases) => [passkeySignIn(uc)];
