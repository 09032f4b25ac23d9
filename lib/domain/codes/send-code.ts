import type { ServiceSettings } from "../../config/settings";
import type { Courier } from "../messages/ports";
import { generateCode, type StoredCode, storeCode } from "./one-time-code";

const CHANNEL = { phone_number: "sms", email: "email" } as const;

/**
 * Sends a fresh confirmation code to a phone (SMS) or e-mail and returns what to store
 * of it. Nothing is stored by this: callers write only after the send succeeded, so a
 * failed send (MessageNotSentError) leaves no state behind.
 */
export async function sendConfirmationCode(
  courier: Courier,
  codes: ServiceSettings["codes"],
  to: { field: "phone_number" | "email"; value: string },
  purpose: "registration" | "contact-change",
  language: "ru" | "en",
  now: number,
): Promise<StoredCode> {
  const code = generateCode(codes.length);
  await courier.send(
    CHANNEL[to.field],
    to.value,
    "confirmation-code",
    { code, minutes: Math.ceil(codes.ttlSeconds / 60), purpose },
    language,
  );
  return storeCode(code, codes.ttlSeconds, codes.attempts, now);
}
