import { ValueTransformer } from 'typeorm';

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
