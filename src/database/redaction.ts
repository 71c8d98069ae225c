import type { EntityManager } from 'typeorm';

/**
 * Erasure of personal values copied into free text and JSON (docs/privacy.md): stored event
 * bodies, idempotent answers, audit details, risk-signal sentences. Each feature redacts its own
 * columns with `redactColumns`; the values are replaced wherever they occur inside a string, the
 * JSON around them is kept (parsed and written back, so a value never breaks the document).
 */
export const ERASED = '[erased]';

/** Values shorter than this are not searched for in free text: they would match anything. */
const MIN_LENGTH = 3;

/** The values worth searching for: trimmed, long enough, without duplicates. */
export function searchable(values: readonly (string | null | undefined)[]): string[] {
  const kept = values.map((v) => (v ?? '').trim()).filter((v) => v.length >= MIN_LENGTH);
  return [...new Set(kept)];
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every occurrence of each value (any case) replaced by ERASED. */
export function redactText(text: string, values: readonly string[]): string {
  if (!values.length) return text;
  const pattern = new RegExp(values.map(escapeRegExp).join('|'), 'gi');
  return text.replace(pattern, ERASED);
}

/** A JSON value with the values redacted inside every string of it, keys included. */
export function redactJson(value: unknown, values: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, values);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, values));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [redactText(k, values), redactJson(v, values)]),
    );
  }
  return value;
}

/** Every string inside a JSON value (the values of a form's answers, say). */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/** Text that holds a JSON document (an event body, a stored answer): redacted as JSON. */
export function redactJsonText(text: string, values: readonly string[]): string {
  try {
    return JSON.stringify(redactJson(JSON.parse(text), values));
  } catch {
    return redactText(text, values);
  }
}

/** How a column holds its text: plain, a JSON document in text, jsonb, or an address (cleared). */
export type RedactedKind = 'text' | 'json-text' | 'jsonb' | 'inet';

export interface RedactedColumns {
  table: string;
  /** The primary key's columns (tenant_id first). */
  key: string[];
  columns: Record<string, RedactedKind>;
  /** Extra condition on the rows, with `$3`… as `params`. */
  where?: string;
  params?: unknown[];
}

const IDENTIFIER = /^[a-z_]+$/;
const CASTS: Record<RedactedKind, string> = {
  text: '',
  'json-text': '',
  jsonb: '::jsonb',
  inet: '::inet',
};

/**
 * Replaces `values` inside the named columns of the tenant's rows that contain any of them (one
 * scan, case-insensitive; JSON-escaped forms searched too); answers how many rows changed.
 */
export async function redactColumns(
  manager: EntityManager,
  tenantId: string,
  given: readonly string[],
  spec: RedactedColumns,
): Promise<number> {
  const values = searchable(given);
  if (!values.length) return 0;
  const names = Object.keys(spec.columns);
  for (const name of [spec.table, ...spec.key, ...names]) {
    if (!IDENTIFIER.test(name)) throw new Error(`Not an identifier: ${name}`);
  }
  const patterns = [...new Set(values.flatMap((v) => [v, JSON.stringify(v).slice(1, -1)]))].map(
    (v) => `%${v.replace(/[\\%_]/g, '\\$&')}%`,
  );
  const params = spec.params ?? [];
  const rows: Record<string, unknown>[] = await manager.query(
    `SELECT ${[...spec.key, ...names].join(', ')} FROM ${spec.table}
      WHERE tenant_id = $1 AND (${names.map((n) => `${n}::text ILIKE ANY($2)`).join(' OR ')})
      ${spec.where ? `AND (${spec.where})` : ''}`,
    [tenantId, patterns, ...params],
  );
  for (const row of rows) {
    const sets = names.map((n, i) => `${n} = $${i + 1}${CASTS[spec.columns[n]]}`);
    const next = names.map((n) => {
      const current = row[n];
      if (current === null || current === undefined) return null;
      const kind = spec.columns[n];
      if (kind === 'jsonb') return JSON.stringify(redactJson(current, values));
      // The driver answers text and inet columns as strings.
      const text = current as string;
      if (kind === 'inet') return values.includes(text) ? null : text;
      if (kind === 'json-text') return redactJsonText(text, values);
      return redactText(text, values);
    });
    const keyAt = names.length + 1;
    await manager.query(
      `UPDATE ${spec.table} SET ${sets.join(', ')}
        WHERE ${spec.key.map((k, i) => `${k} = $${keyAt + i}`).join(' AND ')}`,
      [...next, ...spec.key.map((k) => row[k])],
    );
  }
  return rows.length;
}
