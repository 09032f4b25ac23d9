import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { FoundRequest } from "../../domain/sign-in/authorization";
import type { BrowserOrigin, BrowserSignInUseCases } from "../../domain/sign-in/browser-sign-in";
import { route } from "../../http/route";
import { answeringForm, credentialOf, hostedForm, type OpenedForm, originOf } from "./answers";
import { type Asked, answerDecision } from "./decisions";
import type { HostedUseCases } from "./use-cases";

/** The sign-in form (docs/sign-in.md): every step of it posts here. */

const signInForm = hostedForm({
  username: { type: "string", maxLength: 256 },
  password: { type: "string", maxLength: 1024 },
  otp: { type: "string", maxLength: 16 },
  recovery_code: { type: "string", maxLength: 32 },
  otp_channel: { enum: ["email", "sms"] },
  passkey: { type: "string", maxLength: 16384 },
  new_password: { type: "string", maxLength: 1024 },
});

type SignInFields = {
  username?: string;
  password?: string;
  otp?: string;
  recovery_code?: string;
  otp_channel?: "email" | "sms";
  passkey?: string;
  new_password?: string;
  csrf: string;
};

/**
 * The form's step: a paused sign-in (sealed in the interaction) takes the code or the new
 * password alone; otherwise the login and password start one.
 */
function signInStep(
  signIn: BrowserSignInUseCases,
  request: FoundRequest,
  found: OpenedForm,
  form: SignInFields,
  origin: BrowserOrigin,
) {
  if (!found.paused)
    return signIn.password(request, { username: form.username ?? "", password: form.password ?? "" }, origin);
  const passkey = credentialOf<AuthenticationResponseJSON>(form.passkey);
  const proof = {
    otp: form.otp,
    recoveryCode: form.recovery_code,
    // The page's challenge is bound to the browser's CSRF token, which the form's interaction checked.
    passkey: passkey && { response: passkey, binding: form.csrf },
  };
  const answers = { proof, otpChannel: form.otp_channel, newPassword: form.new_password };
  return signIn.resume(request, found.paused, answers, origin);
}

const signIn = (uc: HostedUseCases) =>
  route({
    id: "hosted.sign-in",
    method: "POST",
    path: "/svc/oauth/signin",
    version: "page",
    auth: "none",
    summary:
      "The sign-in form: login and password, then a second factor (TOTP, a code sent by e-mail or SMS, a recovery code) or a new password when required",
    description:
      "The password step is checked like the password grant (throttling, locks, preSignIn). When a second factor or a new password is needed, the proved step is sealed in the interaction (bound to the CSRF cookie, 10 minutes) and the next post carries the code or the new password alone. On success the browser session cookie is set and the browser goes on to the consent page or back to the client.",
    tags: ["sign-in"],
    request: { body: { contentType: "form", schema: signInForm, required: true } },
    responses: {
      200: { description: "The form again, at the step that is missing", contentType: "text/html" },
      303: { description: "Signed in: on to the client" },
      400: { description: "Expired or forged form", contentType: "text/html" },
    },
    handler: (call) =>
      answeringForm(call, call.body, async (opened, lang) => {
        const found = { ...opened, lang };
        const form = call.body;
        const request = await uc.authorization.loadRequest(opened.query);
        const decision = await signInStep(uc.signIn, request, opened, form, originOf(call, lang));
        const asked: Asked = {
          username: form.username,
          otpChannel: form.otp_channel,
          passkey: Boolean(credentialOf(form.passkey)),
        };
        return answerDecision(call, uc, found, decision, asked);
      }),
  });

export const signInRoutes = (uc: HostedUseCases) => [signIn(uc)];
