import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service';
import { credentialsOf } from '../access/credentials';
import { routeAccess } from '../access/route-access';
import type { FastLane, LaneContext } from '../common/http/fast-lane';
import { MAX_PAGE_SIZE } from '../common/http/pagination.dto';
import { canonicalLocale } from '../common/i18n/format';
import type { TenantEntity } from '../tenants/tenant.entity';
import {
  EmbedLeadsQueryDto,
  EmbedPageQueryDto,
  EmbedQueryDto,
  EmbedTreeQueryDto,
  LEAD_FILTERS,
  MAX_TREE_DEPTH,
} from './dto/embed-queries.dto';
import { EmbedDataController } from './embed-data.controller';
import { EmbedDataService } from './embed-data.service';

const PREFIX = '/embed/v1/data/';

/**
 * Each query parameter the lane accepts, as a strict subset of what the query DTO accepts: a
 * value it parses is one the ValidationPipe would turn into the same thing. Anything else (an
 * unknown or repeated parameter, `page=01`, `max_depth=2.0`) goes to the pipeline, which either
 * accepts it too or answers the 400.
 */
const PARAMS: Record<string, (value: string) => string | number | undefined> = {
  tenant: (v) => (v === '' ? undefined : v),
  locale: canonicalLocale, // the DTO's @ToCanonicalLocale and @IsIntlLocale in one
  page: (v) => (/^[1-9][0-9]{0,8}$/.test(v) ? Number(v) : undefined),
  page_size: (v) =>
    /^[1-9][0-9]{0,2}$/.test(v) && Number(v) <= MAX_PAGE_SIZE ? Number(v) : undefined,
  status: (v) => ((LEAD_FILTERS as readonly string[]).includes(v) ? v : undefined),
  max_depth: (v) =>
    /^[1-9][0-9]?$/.test(v) && Number(v) <= MAX_TREE_DEPTH ? Number(v) : undefined,
};

interface Read {
  route: string;
  query: () => EmbedQueryDto;
  params: readonly string[];
  run: (
    embed: EmbedDataService,
    tenant: TenantEntity,
    userId: string,
    query: never,
  ) => Promise<unknown>;
}

/** The five reads of EmbedDataController, with their query DTOs (whose defaults apply). */
const READS: Record<string, Read> = {
  cabinet: {
    route: `${PREFIX}cabinet/:user_id`,
    query: () => new EmbedQueryDto(),
    params: ['tenant', 'locale'],
    run: (embed, tenant, id, query: EmbedQueryDto) => embed.cabinet(tenant, id, query),
  },
  bonuses: {
    route: `${PREFIX}bonuses/:user_id`,
    query: () => new EmbedPageQueryDto(),
    params: ['tenant', 'locale', 'page', 'page_size'],
    run: (embed, tenant, id, query: EmbedPageQueryDto) => embed.bonuses(tenant, id, query),
  },
  leads: {
    route: `${PREFIX}leads/:user_id`,
    query: () => new EmbedLeadsQueryDto(),
    params: ['tenant', 'locale', 'page', 'page_size', 'status'],
    run: (embed, tenant, id, query: EmbedLeadsQueryDto) => embed.leadsOf(tenant, id, query),
  },
  'referral-tree': {
    route: `${PREFIX}referral-tree/:user_id`,
    query: () => new EmbedTreeQueryDto(),
    params: ['tenant', 'locale', 'max_depth'],
    run: (embed, tenant, id, query: EmbedTreeQueryDto) => embed.tree(tenant, id, query),
  },
  partners: {
    route: `${PREFIX}partners/:user_id`,
    query: () => new EmbedPageQueryDto(),
    params: ['tenant', 'locale', 'page', 'page_size'],
    run: (embed, tenant, id, query: EmbedPageQueryDto) => embed.partners(tenant, id, query),
  },
};

/**
 * The successful answers of the five widget reads (GET /embed/v1/data/…), ahead of Express and the
 * Nest pipeline (docs/architecture.md, "Fast lanes"): the same Origin gate, rate limit, services
 * and JSON as EmbedDataController, without the framework's per-request cost, which on a 2-core
 * machine is most of a widget read's CPU. Every other outcome (a query the lane does not parse, an
 * unknown tenant, a refused Origin, a rate limit, an unknown user, any error) is handed to the
 * pipeline, which answers it with its problem document; so the controller stays the one
 * definition of the API, and this lane only a faster road to its 200s.
 */
@Injectable()
export class EmbedReadLane implements FastLane {
  readonly routes = Object.values(READS).map((read) => `GET ${read.route}`);

  /** The reads' access declarations (`@EmbedOrigin()`, `@RateLimit('embed')`), the controller's. */
  private readonly access = routeAccess(EmbedDataController, EmbedDataController.prototype.cabinet);

  constructor(
    private readonly accessService: AccessService,
    private readonly embed: EmbedDataService,
  ) {}

  handle(req: IncomingMessage, lane: LaneContext): boolean | Promise<boolean> {
    const url = req.url;
    if (req.method !== 'GET' || !url?.startsWith(PREFIX)) return false;
    const queryAt = url.indexOf('?');
    const path = url.slice(PREFIX.length, queryAt < 0 ? undefined : queryAt).split('/');
    const read =
      path.length === 2 && path[1] !== '' && Object.prototype.hasOwnProperty.call(READS, path[0])
        ? READS[path[0]]
        : undefined;
    const query = read && parseQuery(read, queryAt < 0 ? '' : url.slice(queryAt + 1));
    if (!read || !query) return false;
    let userId: string;
    try {
      userId = decodeURIComponent(path[1]);
    } catch {
      return false;
    }
    return this.answer(req, lane, read, query, userId);
  }

  private async answer(
    req: IncomingMessage,
    lane: LaneContext,
    read: Read,
    query: EmbedQueryDto,
    userId: string,
  ): Promise<boolean> {
    let body: string;
    let headers: Readonly<Record<string, string>>;
    try {
      const credentials = credentialsOf({
        headers: req.headers,
        query: { tenant: query.tenant },
        params: {},
        ip: lane.clientIp(),
      });
      const principal = await this.accessService.authorize(this.access, credentials);
      headers = principal.headers ?? {};
      const tenant = principal.tenant!;
      body = JSON.stringify(await read.run(this.embed, tenant, userId, query as never));
    } catch {
      return false; // refused or failed: the pipeline answers with its problem document
    }
    lane.reply(
      200,
      read.route,
      { 'Content-Type': 'application/json; charset=utf-8', ...headers },
      body,
    );
    return true;
  }
}

/** The read's query DTO from the query string, or undefined when the lane should not parse it. */
function parseQuery(read: Read, search: string): EmbedQueryDto | undefined {
  const query = read.query() as unknown as Record<string, unknown>;
  const seen = new Set<string>();
  for (const [name, raw] of new URLSearchParams(search)) {
    const parse = read.params.includes(name) ? PARAMS[name] : undefined;
    const value = parse?.(raw);
    if (value === undefined || seen.has(name)) return undefined;
    seen.add(name);
    query[name] = value;
  }
  return seen.has('tenant') ? (query as unknown as EmbedQueryDto) : undefined;
}
