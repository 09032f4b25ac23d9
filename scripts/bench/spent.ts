import {
  CONSUMED_CAPACITY_HEADER,
  HANDLER_MS_HEADER,
  ROUND_TRIP_KINDS_HEADER,
  ROUND_TRIPS_HEADER,
} from "../../lib/local/gateway";

/** What one request cost, as the counting gateway reports it (`createGateway({ countRoundTrips: true })`). */
export interface Spent {
  roundTrips: number;
  reads: number;
  writes: number;
  /** Read request units. */
  rcu: number;
  /**
   * Write request units as DynamoDB bills them: DynamoDB Local reports a transaction's
   * writes at the standard rate, so those are counted twice here
   * (docs/decisions/consumed-capacity.md).
   */
  wcu: number;
  /** The handler's own time, ms. */
  handlerMs: number;
}

export function spentFrom(headers: Headers): Spent {
  const numbers = (name: string) => (headers.get(name) ?? "").split(" ").map(Number);
  const [reads, writes] = numbers(ROUND_TRIP_KINDS_HEADER);
  const [rcu, wcu, transactionWcu] = numbers(CONSUMED_CAPACITY_HEADER);
  return {
    roundTrips: Number(headers.get(ROUND_TRIPS_HEADER) ?? Number.NaN),
    reads,
    writes,
    rcu,
    wcu: wcu + transactionWcu,
    handlerMs: Number(headers.get(HANDLER_MS_HEADER) ?? Number.NaN),
  };
}
