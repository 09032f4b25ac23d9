import type { Config } from "../config/settings";
import type { Courier } from "../domain/messages/ports";
import type { MetricsPort } from "../domain/metrics";
import { traced } from "../tracing";
import { createCourier } from "./courier";
import type { MessageRenderer } from "./custom-message";
import type { MessageSender } from "./message";
import { createOutboxSender } from "./outbox-sender";

/** The courier the configuration asks for: the outbox file locally, SNS and SES on AWS. */
export function courierFor(config: Config, render?: MessageRenderer, metrics?: MetricsPort): Courier {
  if (config.messages.transport === "outbox") {
    // The console echo is for a developer watching `npm start`; silent runs (tests) skip it.
    const outbox = createOutboxSender(config.outboxFile, config.logLevel === "silent" ? () => undefined : undefined);
    return createCourier({ sms: outbox, email: outbox }, render, metrics);
  }
  return createCourier(
    {
      sms: onFirstMessage(async () => {
        const [{ SNSClient }, { createSnsSender }] = await Promise.all([
          import("@aws-sdk/client-sns"),
          import("./sns-sender"),
        ]);
        return createSnsSender(traced(new SNSClient({ region: config.region })));
      }),
      email: onFirstMessage(async () => {
        const [{ SESClient }, { createSesSender }] = await Promise.all([
          import("@aws-sdk/client-ses"),
          import("./ses-sender"),
        ]);
        return createSesSender(traced(new SESClient({ region: config.region })), config.messages.mailFrom);
      }),
    },
    render,
    metrics,
  );
}

/** A sender made on the first message, so a cold start does not evaluate the SNS and SES clients. */
function onFirstMessage(make: () => Promise<MessageSender>): MessageSender {
  let sender: Promise<MessageSender> | undefined;
  return {
    async send(message) {
      sender ??= make().catch((error: unknown) => {
        sender = undefined;
        throw error;
      });
      return (await sender).send(message);
    },
  };
}
