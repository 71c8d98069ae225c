import { Query, StreamableFile } from '@nestjs/common';
import { type ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Readable } from 'node:stream';
import { ValidationFailedError } from '../common/errors/domain-error';
import { flattenValidationErrors } from '../common/errors/validation';
import { SingleQueryValues } from '../common/http/single-query-values.pipe';

/**
 * What the list pages share: the filters kept by links and row forms, a list's DTO validated by
 * the Admin API's rules, and the CSV links that stream a download with the filters. The SQL of
 * the console's filters is its read model's (console/read-model/conditions.ts).
 */

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
 * A list's filters as its DTO by the Admin API's rules (parseList), for a CSV link: a refused
 * filter is a 400, answered by the page filter with the refusal.
 */
export function csvFilters<T extends object>(
  type: ClassConstructor<T>,
  filters: Record<string, string | undefined>,
): T {
  const { dto, error } = parseList(type, filters);
  if (!dto) throw new ValidationFailedError([], error);
  return dto;
}

/**
 * The handler's list filters (`names`, from the page query) as the list's DTO, or the 400 of
 * csvFilters: `@CsvFilters(ListLeadsQueryDto, LEAD_FILTERS) dto: ListLeadsQueryDto`.
 */
export const CsvFilters = <T extends object>(type: ClassConstructor<T>, names: readonly string[]) =>
  Query(SingleQueryValues, {
    transform: (query: Record<string, string>) => csvFilters(type, pick(query, names)),
  });

/**
 * A CSV download named `filename`: Nest streams it, destroys the source when the browser goes
 * away, and cuts the response when the source fails mid-way (a truncated file never looks whole).
 * Its handler is an @OrgDownload, never cached.
 */
export function csvFile(filename: string, body: Readable): StreamableFile {
  return new StreamableFile(body, {
    type: 'text/csv; charset=utf-8',
    disposition: `attachment; filename="${filename}"`,
  });
}
