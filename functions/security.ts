import { servedRoutes } from "../lib/compiled/security-routes";
import type { Account } from "../lib/domain/accounts/account";
import { problems } from "../lib/domain/errors";
import { decideQrLogin, readQrLogin } from "../lib/domain/login/qr-login";
import { setUntouchable, stateView } from "../lib/domain/security/account-state";
import { type AuthModesBody, authModesView, changeAuthModes } from "../lib/domain/security/auth-modes";
import { checkAnswer, readQuestion, setQuestion } from "../lib/domain/security/security-question";
import { attachGenerator, detachGenerator, issueSecret, listGenerators } from "../lib/domain/security/totp-generators";
import { readMadeFor } from "../lib/http/along-session";
import { jsonResult } from "../lib/http/error-body";
import { type ApiCall, createApiFunction } from "../lib/http/pipeline";
import { subjectAccountBesideKeys } from "../lib/http/subject-account-beside-keys";
import { services } from "../lib/services";
import { totpDeps } from "../lib/totp-deps";

async function account(call: ApiCall) {
  const sub = call.subject as string;
  if (call.account?.sub === sub) return call.account;
  // An account found missing beside the keys is not read again.
  const early = readMadeFor<Account | undefined>(call.alongSession, sub);
  const found = early ? early.value : await services().accounts.get(sub);
  if (!found) throw problems.unknownUser(sub);
  return found;
}

type QuestionBody = { question: string; answer: string };
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The signed-in user deciding a QR login (the route admits user tokens only). */
function userOf(call: ApiCall): string {
  if (call.principal?.mode !== "user") throw new Error("QR decisions are made by a user");
  return call.principal.sub;
}

/** Confirm or refuse a QR login as the signed-in user. */
function qrDecision(decision: "confirmed" | "refused") {
  return async (call: ApiCall) => {
    await decideQrLogin(services().qrLogins, call.params.qrCode, decision, userOf(call), Math.floor(Date.now() / 1000));
    return jsonResult(204, undefined);
  };
}

export const handler = createApiFunction(
  "security",
  servedRoutes,
  {
    "security.auth-get": async (call) => jsonResult(200, authModesView(await account(call))),

    "security.qr-read": async (call) =>
      jsonResult(200, await readQrLogin(services().qrLogins, call.params.qrCode, Math.floor(Date.now() / 1000))),

    "security.qr-confirm": qrDecision("confirmed"),
    "security.qr-refuse": qrDecision("refused"),

    "security.auth-change": async (call) =>
      jsonResult(
        200,
        await changeAuthModes(services().accountSecurity, call.subject as string, call.body as AuthModesBody, (sub) =>
          services().accountSecurity.hasSecondFactor(sub),
        ),
      ),

    "security.state-get": async (call) => jsonResult(200, stateView(await account(call))),

    "security.state-change": async (call) => {
      const { till } = call.body as { till?: number };
      await setUntouchable(services().accountSecurity, call.subject as string, till, Math.floor(Date.now() / 1000));
      return jsonResult(204, undefined);
    },

    "security.secqsn-get": async (call) =>
      jsonResult(200, await readQuestion(services().securityQuestions, call.subject as string)),

    "security.secqsn-set": async (call) => {
      await setQuestion(services().securityQuestions, call.subject as string, call.body as QuestionBody, nowSeconds());
      return jsonResult(204, undefined);
    },

    "security.secqsn-delete": async (call) => {
      await services().securityQuestions.remove(call.subject as string);
      return jsonResult(204, undefined);
    },

    "security.secqsn-check": async (call) => {
      await checkAnswer(services().securityQuestions, call.subject as string, call.body as QuestionBody, nowSeconds());
      return jsonResult(204, undefined);
    },

    "security.totp-list": async (call) => jsonResult(200, await listGenerators(services(), call.subject as string)),

    "security.totp-issue": async (call) => jsonResult(200, await issueSecret(totpDeps(), await account(call))),

    "security.totp-attach": async (call) => {
      await attachGenerator(
        totpDeps(),
        call.subject as string,
        call.body as { base32Secret: string; otpCode: string; name?: string },
      );
      return jsonResult(204, undefined);
    },

    "security.totp-delete": async (call) => {
      await detachGenerator(services(), call.subject as string, call.params.id as string);
      return jsonResult(204, undefined);
    },
  },
  {
    alongKeys: {
      "security.auth-get": subjectAccountBesideKeys,
      "security.state-get": subjectAccountBesideKeys,
      "security.totp-issue": subjectAccountBesideKeys,
    },
  },
);
