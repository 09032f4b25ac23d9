import { PublishCommand, type SNSClient } from "@aws-sdk/client-sns";
import { MessageNotSentError } from "../domain/messages/ports";
import type { MessageSender, OutgoingMessage } from "./message";

/** SMS through SNS: a direct Publish to a phone number in E.164. */
export function createSnsSender(sns: SNSClient): MessageSender {
  return {
    async send(message: OutgoingMessage): Promise<void> {
      try {
        await sns.send(
          new PublishCommand({
            PhoneNumber: `+${message.to}`,
            Message: message.text,
            MessageAttributes: {
              // Codes must not be dropped for cost the way promotional SMS may be.
              "AWS.SNS.SMS.SMSType": { DataType: "String", StringValue: "Transactional" },
            },
          }),
        );
      } catch (error) {
        throw new MessageNotSentError("sms", error);
      }
    },
  };
}
