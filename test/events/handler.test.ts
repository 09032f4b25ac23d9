import { EventBridgeClient, PutEventsCommand, type PutEventsCommandInput } from "@aws-sdk/client-eventbridge";
import { marshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { handler } from "../../functions/events";
import { setEnvDefaults } from "../../lib/config";
import { EVENTBRIDGE_SOURCE } from "../../lib/events/eventbridge-publisher";
import { ENTITY, itemOf, keys } from "../../lib/store/keys";

/**
 * The events function with EventBridge mocked at the SDK boundary (EventBridge is not
 * storage): ten entries per PutEvents, refused entries retried, and a batch that keeps
 * failing reported from its first refused record so the stream resumes there.
 */

const BUS = "arn:aws:events:eu-west-1:123456789012:event-bus/identity";
const eventBridge = mockClient(EventBridgeClient);

beforeAll(() => setEnvDefaults({ EVENT_BUS_NAME: BUS }));
afterEach(() => eventBridge.reset());

/** A group member added, as the stream delivers it: one event each. */
function memberAdded(n: number): DynamoDBRecord {
  const item = itemOf(ENTITY.groupMember, keys.groupMember("team", "g1", `user${n}`), { sub: `user${n}`, addedAt: n });
  return {
    eventID: `rec-${n}`,
    eventName: "INSERT",
    eventSource: "aws:dynamodb",
    dynamodb: {
      ApproximateCreationDateTime: 1_700_000_000 + n,
      Keys: marshall({ PK: item.PK, SK: item.SK }) as never,
      NewImage: marshall(item) as never,
      SequenceNumber: String(1000 + n),
      StreamViewType: "NEW_AND_OLD_IMAGES",
    },
  };
}

/** A record that maps to nothing (a counter). */
function counter(n: number): DynamoDBRecord {
  const record = memberAdded(n);
  const item = itemOf(ENTITY.ipFailures, keys.ipFailures("198.51.100.1", 1), { count: n });
  return { ...record, dynamodb: { ...record.dynamodb, NewImage: marshall(item) as never } };
}

const batch = (records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });
const calls = () =>
  eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input as PutEventsCommandInput);
const sentIds = () => calls().flatMap((input) => (input.Entries ?? []).map((e) => JSON.parse(e.Detail ?? "{}").id));

function accept(input: PutEventsCommandInput) {
  return { FailedEntryCount: 0, Entries: (input.Entries ?? []).map((_, i) => ({ EventId: `eb-${i}` })) };
}

describe("the events function with EventBridge", () => {
  it("when a batch gives 25 events, it sends them in order, ten per PutEvents, each a whole CloudEvent on the bus", async () => {
    eventBridge.on(PutEventsCommand).callsFake(accept);
    const records = Array.from({ length: 25 }, (_, n) => memberAdded(n));
    const answer = await handler(batch([counter(99), ...records]));

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(calls().map((input) => input.Entries?.length)).toEqual([10, 10, 5]);
    expect(sentIds()).toEqual(records.map((_, n) => `rec-${n}:group.member_added`));
    const [first] = calls()[0].Entries ?? [];
    expect(first).toMatchObject({
      EventBusName: BUS,
      Source: EVENTBRIDGE_SOURCE,
      DetailType: "svc.identity.group.member_added",
    });
    expect(JSON.parse(first.Detail ?? "{}")).toMatchObject({
      specversion: "1.0",
      id: "rec-0:group.member_added",
      type: "svc.identity.group.member_added",
      subject: "grps|g1|team",
      time: "2023-11-14T22:13:20.000Z",
      data: { profile: "team", groupId: "g1", sub: "user0" },
    });
  });

  it("when PutEvents refuses some entries, only those are sent again, and each event is accepted exactly once", async () => {
    let call = 0;
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => {
      call += 1;
      if (call > 1) return accept(input);
      // The first call refuses entries 3 and 7 (throttled), accepts the others.
      const entries = (input.Entries ?? []).map((_, i) =>
        i === 3 || i === 7
          ? { ErrorCode: "ThrottlingException", ErrorMessage: "Rate exceeded" }
          : { EventId: `eb-${i}` },
      );
      return { FailedEntryCount: 2, Entries: entries };
    });
    const answer = await handler(batch(Array.from({ length: 10 }, (_, n) => memberAdded(n))));

    expect(answer).toEqual({ batchItemFailures: [] });
    expect(calls().map((input) => input.Entries?.length)).toEqual([10, 2]);
    expect(sentIds().slice(10)).toEqual(["rec-3:group.member_added", "rec-7:group.member_added"]);
  });

  it("when an entry is refused at every attempt, the batch reports its record, so the stream resumes there", async () => {
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => {
      const entries = (input.Entries ?? []).map((entry, i) =>
        JSON.parse(entry.Detail ?? "{}").id === "rec-6:group.member_added"
          ? { ErrorCode: "InternalFailure", ErrorMessage: "try again" }
          : { EventId: `eb-${i}` },
      );
      return { FailedEntryCount: entries.filter((e) => "ErrorCode" in e).length, Entries: entries };
    });
    const answer = await handler(batch(Array.from({ length: 12 }, (_, n) => memberAdded(n))));

    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: "1006" }] });
    // Three attempts for the refused event, one for each of the others.
    expect(sentIds().filter((id) => id === "rec-6:group.member_added")).toHaveLength(3);
    expect(sentIds()).toHaveLength(11 + 3);
  });

  it("when PutEvents itself fails (the call throws), the invocation fails and Lambda retries or bisects the batch", async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error("network down"));
    await expect(handler(batch([memberAdded(1)]))).rejects.toThrow("network down");
  });
});
