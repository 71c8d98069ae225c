import type { DeliveryStatus } from '../webhook-delivery.entity';
import {
  ENDPOINT_SLOTS,
  type FlushInput,
  type FlushOutput,
  type SettleInput,
} from './deliveries.types';

/**
 * The engine's statements take one array per column ($1 … $27, in the order of
 * deliveries.sql.ts) and answer rows as arrays: no object per row on the hot path.
 */

/** A row of FLUSH's answer; `kind` says which part it answers, `n` which element (1-based). */
type FlushRow = [
  kind: 'c' | 'b' | 'l' | 'h' | 's',
  n: number,
  count: number | null,
  eventType: string | null,
  status: DeliveryStatus | null,
  body: string | null,
  url: string | null,
  enabled: boolean | null,
  secretSealed: string | null,
  previousSecretSealed: string | null,
  previousSecretExpiresMs: number | null,
];

/** $1–$12: the records (RECORD_CTES). */
export function settleParameters(inputs: SettleInput[]): unknown[] {
  return [
    inputs.map((i) => i.tenantId),
    inputs.map((i) => i.eventId),
    inputs.map((i) => i.attempt),
    inputs.map((i) => i.at),
    inputs.map((i) => i.statusCode),
    inputs.map((i) => i.durationMs),
    inputs.map((i) => i.error),
    inputs.map((i) => i.responseBody),
    inputs.map((i) => i.replay),
    inputs.map((i) => i.status),
    inputs.map((i) => i.nextAttemptAt),
    inputs.map((i) => i.deliveredAt),
  ];
}

/** $1–$27: records, then the holder, lock and cap, leases, claims and unclaims (FLUSH). */
export function flushParameters(input: FlushInput): unknown[] {
  const { records, lanes, claims, unclaims } = input;
  return [
    ...settleParameters(records),
    input.holder,
    input.lockMs,
    Math.min(input.endpointConcurrency, ENDPOINT_SLOTS),
    lanes.map((l) => l.tenantId),
    lanes.map((l) => l.target),
    lanes.map((l) => l.outstanding),
    lanes.map((l) => l.prefetch),
    lanes.map((l) => l.renew),
    claims.map((c) => c.tenantId),
    claims.map((c) => c.eventId),
    claims.map((c) => c.replay),
    claims.map((c) => c.deferMs),
    unclaims.map((u) => u.tenantId),
    unclaims.map((u) => u.eventId),
    unclaims.map((u) => u.attempt),
  ];
}

/**
 * FLUSH's rows, per input element: a record not answered was not settled, a lane not answered
 * holds nothing, and a claim not answered had nothing to do.
 */
export function decodeFlush(input: FlushInput, rows: unknown[][]): FlushOutput {
  const output: FlushOutput = {
    settled: input.records.map(() => false),
    lanes: input.lanes.map(() => ({ held: 0, endpoint: null })),
    claims: input.claims.map(() => ({ kind: 'none' })),
  };
  for (const row of rows as FlushRow[]) {
    const i = row[1] - 1;
    switch (row[0]) {
      case 's':
        output.settled[i] = true;
        break;
      case 'h':
        output.lanes[i] = {
          held: row[2]!,
          endpoint:
            row[6] === null
              ? null
              : {
                  url: row[6],
                  enabled: row[7]!,
                  secretSealed: row[8]!,
                  previousSecretSealed: row[9],
                  previousSecretExpiresAt: row[10],
                },
        };
        break;
      case 'c':
        output.claims[i] = {
          kind: 'claimed',
          claim: { attempt: row[2]!, eventType: row[3]!, status: row[4]!, body: row[5]! },
        };
        break;
      case 'b':
        output.claims[i] = { kind: 'busy', attempts: row[2]! };
        break;
      case 'l':
        output.claims[i] = { kind: 'limited' };
        break;
    }
  }
  return output;
}

/** SETTLE's rows: per input, whether its delivery was settled. */
export function decodeSettled(inputs: SettleInput[], rows: { n: number }[]): boolean[] {
  const settled = inputs.map(() => false);
  for (const row of rows) settled[row.n - 1] = true;
  return settled;
}
