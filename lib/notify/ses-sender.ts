import { type SESClient, SendEmailCommand } from "@aws-sdk/client-ses";
import { MessageNotSentError } from "../domain/messages/ports";
import type { MessageSender, OutgoingMessage } from "./message";

/** E-mail through SES, plain text, from the configured sender address. */
export function createSesSender(ses: SESClient, from: string): MessageSender {
  return {
    async send(message: OutgoingMessage): Promise<void> {
      try {
        await ses.send(
          new SendEmailCommand({
            Source: from,
            Destination: { ToAddresses: [message.to] },
            Message: {
              Subject: { Data: message.subject ?? "", Charset: "UTF-8" },
              Body: { Text: { Data: message.text, Charset: "UTF-8" } },
            },
          }),
        );
      } catch (error) {
        throw new MessageNotSentError("email", error);
      }
    },
  };
}
