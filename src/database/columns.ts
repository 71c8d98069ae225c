import { ValueTransformer } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

/**
 * bigint columns (money in kopecks, counters) cross into TypeScript as `number`, guarded: a value
 * beyond 2^53 would be wrong silently, so it throws instead. 9e15 kopecks is far beyond any order.
 */
export const bigintToNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => {
    if (value === null || value === undefined) return value;
    const n = Number(value);
    if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${value} is not a safe integer`);
    return n;
  },
};

/** timestamptz with milliseconds, the only time type the schema uses. */
export const TIMESTAMPTZ = 'timestamptz' as const;

/**
 * An entity object as TypeORM's insert/values() wants it. TypeORM's deep-partial type rejects
 * `Record<string, unknown>` (jsonb) and optional relations although the objects are complete.
 */
export function insertable<T>(entity: T): QueryDeepPartialEntity<T> {
  return entity as QueryDeepPartialEntity<T>;
}
