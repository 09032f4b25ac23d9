import type { QrLoginRepository } from "../login/ports";
import { decideQrLogin, readQrLogin } from "../login/qr-login";

export type QrDecisionUseCases = ReturnType<typeof qrDecisionUseCases>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A signed-in user's side of a QR-code login: see who asks, then confirm or refuse. */
export function qrDecisionUseCases(deps: { qrLogins: QrLoginRepository }) {
  return {
    read: (code: string) => readQrLogin(deps.qrLogins, code, nowSeconds()),
    decide: (code: string, decision: "confirmed" | "refused", sub: string) =>
      decideQrLogin(deps.qrLogins, code, decision, sub, nowSeconds()),
  };
}
