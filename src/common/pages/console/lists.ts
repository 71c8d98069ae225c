import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Response } from 'express';
import type { Readable } from 'node:stream';
import { flattenValidationErrors } from '../../errors/validation';

/**
 * What the list pages of the console and the admin pages share: the SQL conditions of their
 * filters, the filters kept by links and row forms, a list's DTO validated by the Admin API's
 * rules, and the CSV links that stream the transfer exports (ExportsService) with the filters.
 */

/** SQL conditions with `$2…` parameters ($1 is the tenant), ANDed together. */
export class Conditions {
  private readonly parts: string[] = [];
  readonly params: string[] = [];

  /** Adds `sql` with `?` standing for `value` (every `?` the same value). */
  add(sql: string, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    this.params.push(value);
    this.parts.push(sql.replace(/\?/g, `$${this.params.length + 1}`));
    return this;
  }

  /** `created_at` of `alias` within the days `from`…`to` (UTC, both inclusive). */
  period(column: string, from?: string, to?: string): this {
    this.add(`${column} >= (?::date)::timestamp AT TIME ZONE 'UTC'`, from);
    return this.add(`${column} < (?::date + 1)::timestamp AT TIME ZONE 'UTC'`, to);
  }

  get sql(): string {
    return this.parts.join(' AND ');
  }
}

/** The non-empty values of the query among `names` (the filters kept by links and the CSV). */
export function pick<K extends string>(
  query: Record<string, string>,
  names: readonly K[],
): Partial<Record<K, string>> {
  return Object.fromEntries(
    names.filter((n) => query[n]).map((n) => [n, query[n].trim()]),
  ) as Partial<Record<K, string>>;
}

/** The rows of a console page. */
export const PAGE_SIZE = 25;

/**
 * A list's filters (and page) as its DTO, validated by the Admin API's rules; a refusal is the
 * message the page shows (and the CSV answers with 400).
 */
export function parseList<T extends object>(
  type: ClassConstructor<T>,
  filters: Record<string, string | undefined>,
  page?: string,
): { dto?: T; error?: string } {
  const dto = plainToInstance(type, {
    ...filters,
    ...(page === undefined ? {} : { page: page || '1', page_size: String(PAGE_SIZE) }),
  });
  const error = refusal(dto);
  return error === undefined ? { dto } : { error };
}

/** What the Admin API's rules refuse in these DTOs, as the one line a page shows; or nothing. */
export function refusal(...dtos: object[]): string | undefined {
  const refused = flattenValidationErrors(
    dtos.flatMap((d) => validateSync(d, { whitelist: true })),
  );
  return refused.length ? refused.map((x) => `${x.field}: ${x.message}`).join('; ') : undefined;
}

/** A list page's filters (`names`) from its query, and their DTO with the page, or the refusal. */
export function listQuery<T extends object, K extends string>(
  type: ClassConstructor<T>,
  query: Record<string, string>,
  names: readonly K[],
): { filters: Partial<Record<K, string>>; dto?: T; error?: string } {
  const filters = pick(query, names);
  // No `page` is the first page, of the console's page size like the pager's (not the API's 20).
  return { filters, ...parseList(type, filters, query.page ?? '') };
}

/**
 * A list page's filters (`names`) from its query and the page of rows `load` gives for their DTO;
 * no rows, and the refusal, when the Admin API's rules refuse a filter.
 */
export async function loadList<T extends object, K extends string, L>(
  type: ClassConstructor<T>,
  query: Record<string, string>,
  names: readonly K[],
  load: (dto: T) => Promise<L>,
): Promise<{ filters: Partial<Record<K, string>>; list?: L; error?: string }> {
  const { filters, dto, error } = listQuery(type, query, names);
  return { filters, list: dto && (await load(dto)), error };
}

/** The filters (`names`) of the list a row form came from: its `back` field, a query. */
export function keptFilters<K extends string>(
  back: string | undefined,
  names: readonly K[],
): Partial<Record<K, string>> {
  return pick(Object.fromEntries(new URLSearchParams(back ?? '')), names);
}

/**
 * A list's CSV link: the export `load` makes for the parsed filters, streamed as `filename`; a
 * refused filter answers 400 with the refusal as text.
 */
export async function sendListCsv<T extends object>(
  res: Response,
  filename: string,
  parsed: { dto?: T; error?: string },
  load: (dto: T) => Promise<Readable>,
): Promise<void> {
  if (!parsed.dto) {
    res.status(400).type('text/plain').send(parsed.error);
    return;
  }
  sendCsv(res, filename, await load(parsed.dto));
}

/** The CSV link of a list page: its filters (`names`) from the query, then as sendListCsv. */
export function sendFilteredCsv<T extends object, K extends string>(
  res: Response,
  filename: string,
  type: ClassConstructor<T>,
  query: Record<string, string>,
  names: readonly K[],
  load: (dto: T) => Promise<Readable>,
): Promise<void> {
  return sendListCsv(res, filename, parseList(type, pick(query, names)), load);
}

/** The status and headers of a CSV download named `filename`, never cached. */
export function csvHeaders(res: Response, filename: string): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
}

/** Streams an export to the browser as a download; a failure mid-way cuts the response. */
export function sendCsv(res: Response, filename: string, stream: Readable): void {
  csvHeaders(res, filename);
  stream.on('error', (error: Error) => res.destroy(error));
  res.on('close', () => {
    if (!stream.readableEnded) stream.destroy();
  });
  stream.pipe(res);
}
