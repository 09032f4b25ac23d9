import { DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from "@aws-sdk/client-dynamodb-streams";
import type { DynamoDBRecord } from "aws-lambda";

/**
 * Reads the table's stream as Lambda's event source mapping would (local stack and tests;
 * on AWS Lambda polls the stream itself). Records come in Lambda's event shape, so the
 * same handler (functions/events.ts) takes them.
 */
export interface TableStreamReader {
  /** Records written since the last call (or since `from` on the first), in shard order. */
  next(): Promise<DynamoDBRecord[]>;
  close(): void;
}

export interface StreamReaderOptions {
  endpoint: string;
  region: string;
  tableName: string;
  /** TRIM_HORIZON: everything the stream still holds; LATEST: only what is written from now on. */
  from: "TRIM_HORIZON" | "LATEST";
}

const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

export async function openStreamReader(
  tables: DynamoDBClient,
  options: StreamReaderOptions,
): Promise<TableStreamReader> {
  const { Table } = await tables.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${options.tableName} has no stream`);
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: options.region,
    credentials: LOCAL_CREDENTIALS,
  });
  // Shard id -> where to read next; undefined once a closed shard is read to its end.
  const iterators = new Map<string, string | undefined>();
  let opened = false;

  async function discoverShards(): Promise<void> {
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
        // Shards there when the reader opens start at `from`; one found later is new: read it whole.
        const type = opened ? "TRIM_HORIZON" : options.from;
        const { ShardIterator } = await streams.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: type }),
        );
        iterators.set(shard.ShardId, ShardIterator);
      }
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    opened = true;
  }
  await discoverShards();

  return {
    async next() {
      await discoverShards();
      const records: DynamoDBRecord[] = [];
      for (const [shardId, iterator] of iterators) {
        let current = iterator;
        // Read the shard up to what it holds now: an open shard answers an empty page at its end.
        while (current) {
          const page = await streams.send(new GetRecordsCommand({ ShardIterator: current }));
          current = page.NextShardIterator;
          const got = page.Records ?? [];
          records.push(...got.map((record) => lambdaRecord(record, streamArn)));
          if (got.length === 0) break;
        }
        iterators.set(shardId, current);
      }
      return records;
    },
    close: () => streams.destroy(),
  };
}

type Image = Record<string, unknown>;

/**
 * The streams client decodes an empty map attribute ({"M":{}}) as {}, which unmarshall
 * refuses; Lambda passes {"M":{}}. Restores it, at any depth.
 */
function repaired(image: Image | undefined): Image | undefined {
  if (!image) return image;
  const value = (attribute: unknown): unknown => {
    if (typeof attribute !== "object" || attribute === null) return attribute;
    const typed = attribute as { M?: Image; L?: unknown[] };
    if (Object.keys(typed).length === 0) return { M: {} };
    if (typed.M) return { M: repaired(typed.M) };
    if (typed.L) return { L: typed.L.map(value) };
    return attribute;
  };
  return Object.fromEntries(Object.entries(image).map(([name, attribute]) => [name, value(attribute)]));
}

/** The record as Lambda passes it: the same fields, the creation time in epoch seconds. */
function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const { ApproximateCreationDateTime, NewImage, OldImage, ...change } = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    ...(record.userIdentity && {
      userIdentity: { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId },
    }),
    dynamodb: {
      ...(change as NonNullable<DynamoDBRecord["dynamodb"]>),
      ...(NewImage && { NewImage: repaired(NewImage) as never }),
      ...(OldImage && { OldImage: repaired(OldImage) as never }),
      ApproximateCreationDateTime: Math.floor((ApproximateCreationDateTime?.getTime() ?? Date.now()) / 1000),
    },
  };
}
