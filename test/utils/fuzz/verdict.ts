/**
 * What every answer of the fuzz battery must (not) be: no 5xx, problem documents on JSON
 * routes, no stack, SQL or anything of tenant B.
 */
import type { Response } from 'supertest';
import { Op } from './openapi-doc';
import { Built } from './requests';
import { World } from './world';

export const LEAKS_INTERNALS =
  /\n\s+at\s|\bat\s+\S+\s+\(|\.(ts|js):\d+|node_modules|QueryFailedError|TypeError|RangeError|ReferenceError|HttpException|duplicate key value|violates .* constraint|syntax error at or near|invalid input syntax|invalid byte sequence|\bSELECT\s.+\sFROM\s|\bINSERT INTO\b/i;

export interface Finding {
  op: string;
  request: string;
  status: number;
  problem: string;
  body: string;
}

export function judge(
  op: Op,
  built: Built,
  res: Response,
  b: World,
  bIds: string[],
  sentBefore: Set<string>,
): string[] {
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`answered ${res.status}`);
  const text = res.text ?? '';
  const headers = JSON.stringify(res.headers);
  if (LEAKS_INTERNALS.test(text)) problems.push('leaks a stack or SQL');
  // The public pages pick their tenant by what the request names (a short link's code, the
  // popup's client_id, the join pages' slug): naming B's shows B's page to anyone, by design.
  const sent = `${built.url} ${built.body ?? ''} ${JSON.stringify(built.headers)}`;
  const namesB =
    /^\/(s|oauth|p)\//.test(op.path) && [b.slug, b.code].some((id) => sent.includes(id));
  for (const marker of namesB ? [] : b.markers) {
    if (text.includes(marker) || headers.includes(marker)) {
      problems.push(`leaks tenant B's data (${marker.slice(0, 12)}…)`);
    }
  }
  const decodedUrl = safeDecode(built.url);
  for (const id of namesB ? [] : bIds) {
    // An id the battery sent A earlier may come back as A's own data (a key named after it).
    const echoed = sent.includes(id) || decodedUrl.includes(id) || sentBefore.has(id);
    if ((text.includes(id) || headers.includes(id)) && !echoed) {
      problems.push(`answers with tenant B's id ${id} it was not sent`);
    }
  }
  if (!op.html && res.status >= 400 && res.status < 500) {
    const body = res.body as Record<string, unknown> | undefined;
    const problemJson = /^application\/problem\+json/.test(res.headers['content-type'] ?? '');
    if (
      !problemJson ||
      typeof body?.type !== 'string' ||
      typeof body.title !== 'string' ||
      body.status !== res.status ||
      typeof body.code !== 'string'
    ) {
      problems.push('a 4xx that is not a problem document');
    }
  }
  return problems;
}

export function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}

// ---------------------------------------------------------------------------------------------
