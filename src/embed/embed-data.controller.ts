import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentTenant, EmbedOrigin } from '../common/access/access.decorators';
import { RateLimit } from '../access/rate-limits';
import { ApiProblems } from '../common/errors/problem.response';
import { ReplicaReads } from '../database/replica-reads';
import { FastLane } from '../fast-lanes/fast-lane.decorator';
import type { TenantEntity } from '../tenants/tenant.entity';
import {
  EmbedLeadsQueryDto,
  EmbedPageQueryDto,
  EmbedQueryDto,
  EmbedTreeQueryDto,
} from './dto/embed-queries.dto';
import {
  EmbedBonusesResponse,
  EmbedCabinetResponse,
  EmbedLeadsResponse,
  EmbedPartnersResponse,
  EmbedTreeResponse,
} from './dto/embed.response';
import { EmbedDataService } from './embed-data.service';

/**
 * What an Embed Data read may answer: the Origin gate's refusals, and for a tenant with
 * `embed_auth: token` the bearer's (docs/embedding.md §3).
 */
export const EMBED_READ_PROBLEMS = [
  400,
  [401, 'invalid_token'],
  [401, 'token_expired'],
  [403, 'origin_not_allowed'],
  [403, 'tenant_mismatch'],
  [403, 'forbidden'],
  [404, 'user_not_found'],
  [404, 'tenant_not_found'],
] as (number | [number, string])[];

/**
 * The widget reads (seed 4.1): gated by `?tenant=` and the request's Origin, and for a tenant with
 * `embed_auth: token` also by the popup JWT of the member read (AccessService). Every page
 * view of a page with a widget reads here, so each read is also a fast lane (`@FastLane()`).
 */
@ApiTags('embed')
@Controller('embed/v1/data')
@EmbedOrigin()
@RateLimit('embed')
export class EmbedDataController {
  constructor(
    private readonly embed: EmbedDataService,
    /** On the replica when DATABASE_REPLICA_URL is set, else the primary (replica-reads.ts). */
    private readonly replica: ReplicaReads,
  ) {}

  /** The partner's cabinet: KPIs, the 5 newest leads and the 10 newest transactions. */
  @Get('cabinet/:user_id')
  @FastLane()
  @ApiProblems(...EMBED_READ_PROBLEMS)
  cabinet(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Query() query: EmbedQueryDto,
  ): Promise<EmbedCabinetResponse> {
    return this.replica.read(() => this.embed.cabinet(tenant, userId, query));
  }

  /** Totals in the tenant currency, one account per currency, and paginated transactions. */
  @Get('bonuses/:user_id')
  @FastLane()
  @ApiProblems(...EMBED_READ_PROBLEMS)
  bonuses(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Query() query: EmbedPageQueryDto,
  ): Promise<EmbedBonusesResponse> {
    return this.replica.read(() => this.embed.bonuses(tenant, userId, query));
  }

  /** The partner's referred leads, newest first, filtered by status. */
  @Get('leads/:user_id')
  @FastLane()
  @ApiProblems(...EMBED_READ_PROBLEMS)
  leads(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Query() query: EmbedLeadsQueryDto,
  ): Promise<EmbedLeadsResponse> {
    return this.replica.read(() => this.embed.leadsOf(tenant, userId, query));
  }

  /** The downline level by level to max_depth (1–20), at most 1000 nodes. */
  @Get('referral-tree/:user_id')
  @FastLane()
  @ApiProblems(...EMBED_READ_PROBLEMS)
  tree(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Query() query: EmbedTreeQueryDto,
  ): Promise<EmbedTreeResponse> {
    return this.replica.read(() => this.embed.tree(tenant, userId, query));
  }

  /** The partner's direct referrals, newest first. */
  @Get('partners/:user_id')
  @FastLane()
  @ApiProblems(...EMBED_READ_PROBLEMS)
  partners(
    @CurrentTenant() tenant: TenantEntity,
    @Param('user_id') userId: string,
    @Query() query: EmbedPageQueryDto,
  ): Promise<EmbedPartnersResponse> {
    return this.replica.read(() => this.embed.partners(tenant, userId, query));
  }
}
