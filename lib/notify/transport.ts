import { SESClient } from "@aws-sdk/client-ses";
import { SNSClient } from "@aws-sdk/client-sns";
import type { Config } from "../config/settings";
import type { Courier } from "../domain/messages/ports";
import type { MetricsPort } from "../domain/metrics";
import { traced } from "../tracing";
import { createCourier } from "./courier";
import type { MessageRenderer } from "./custom-message";
import { createOutboxSender } from "./outbox-sender";
import { createSesSender } from "./ses-sender";
import { createSnsSender } from "./sns-sender";

/** The courier the configuration asks for: the outbox file locally, SNS and SES on AWS. */
export function courierFor(config: Config, render?: MessageRenderer, metrics?: MetricsPort): Courier {
  if (config.messages.transport === "outbox") {
    // The console echo is for a developer watching `npm start`; silent runs (tests) skip it.
    const outbox = createOutboxSender(config.outboxFile, config.logLevel === "silent" ? () => undefined : undefined);
    return createCourier({ sms: outbox, email: outbox }, render, metrics);
  }
  return createCourier(
    {
      sms: createSnsSender(traced(new SNSClient({ region: config.region }))),
      email: createSesSender(traced(new SESClient({ region: config.region })), config.messages.mailFrom),
    },
    render,
    metrics,
  );
}
