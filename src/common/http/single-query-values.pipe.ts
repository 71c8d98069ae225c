import { Injectable, PipeTransform, Query } from '@nestjs/common';

/**
 * The query of a server-rendered page with one string per name: `?notice=a&notice=b` (which
 * Express parses into an array) keeps its first value, so a page that reads `query.notice` as
 * text never meets an array (a repeated parameter was a 500). The JSON APIs validate their query
 * DTOs instead, where an array for a scalar is 400.
 */
@Injectable()
export class SingleQueryValues implements PipeTransform {
  transform(value: unknown): Record<string, string> {
    const query: Record<string, string> = {};
    if (typeof value !== 'object' || value === null) return query;
    for (const [name, raw] of Object.entries(value)) {
      const first: unknown = Array.isArray(raw) ? raw[0] : raw;
      if (typeof first === 'string') query[name] = first;
    }
    return query;
  }
}

/** The handler's page query through SingleQueryValues: `@PageQuery() query: Record<string, string>`. */
export const PageQuery = () => Query(SingleQueryValues);
