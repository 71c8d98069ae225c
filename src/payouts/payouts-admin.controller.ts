import { Body, Controller, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Admin, CurrentActor, CurrentTenant } from '../common/access/access.decorators';
import type { Actor } from '../common/access/actor';
import type { Request } from 'express';
import { ApiProblems } from '../common/errors/problem.response';
import { PageQueryDto } from '../common/http/pagination.dto';
import { StaffWrite } from '../common/http/write-routes';
import type { TenantEntity } from '../tenants/tenant.entity';
import {
  ListPayoutsQueryDto,
  MarkPayoutFailedDto,
  MarkPayoutPaidDto,
} from './dto/payout-requests.dto';
import {
  PayoutListResponse,
  PayoutResponse,
  PayoutRunListResponse,
  PayoutRunResponse,
  SettleRunResponse,
} from './dto/payout.response';
import { readSettleFile } from './csv-body';
import { PAYOUT_SETTLEMENTS } from './payout-settlements.openapi';
import { seesFullPayoutDetails } from './payout-details/payout-details.service';
import { PayoutsCsvService } from './payouts-csv.service';
import { PayoutsService } from './payouts.service';

/**
 * Staff's payouts (docs/payouts.md): runs, the run file, settling, and each payout's life; `paid`
 * and `failed` are the federation's settlements (PAYOUT_SETTLEMENTS).
 */
@ApiTags('admin')
@Controller('admin/v1/tenants/:slug/payouts')
export class PayoutsAdminController {
  constructor(
    private readonly payouts: PayoutsService,
    private readonly csv: PayoutsCsvService,
  ) {}

  /** A payout run now: one payout per member and currency whose payable balance ≥ the minimum. */
  @Post('runs')
  @Admin('manager')
  @ApiProblems(401, 403, 404)
  async run(
    @CurrentTenant() tenant: TenantEntity,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutRunResponse> {
    return (await this.payouts.run(tenant, actor))!;
  }

  /** The tenant's runs, newest first, with how many of each run's payouts are in each status. */
  @Get('runs')
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  runs(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: PageQueryDto,
  ): Promise<PayoutRunListResponse> {
    return this.payouts.runs(tenant.id, query);
  }

  /**
   * The run as RFC 4180 CSV for a mass payout: one row per payout (docs/payouts.md §4), with each
   * payout's `method` and masked details; the full details (`holder`, `iban`, `account`, `bik`,
   * `paypal_email`) for the tenant's owners and the platform only, empty for managers and viewers.
   */
  @Get('runs/:run_id.csv')
  @Admin('viewer')
  @Header('Content-Type', 'text/csv; charset=utf-8')
  @ApiProduces('text/csv')
  @ApiOkResponse({
    description:
      "The run CSV; a text cell a spreadsheet would evaluate (starting with = + - @, TAB or CR) has a leading '",
    schema: { type: 'string' },
  })
  @ApiProblems(401, 403, [404, 'payout_run_not_found'])
  runCsv(
    @CurrentTenant() tenant: TenantEntity,
    @Param('run_id') runId: string,
    @CurrentActor() actor: Actor,
  ): Promise<string> {
    return this.csv.runCsv(tenant.id, runId, seesFullPayoutDetails(actor) ? 'full' : 'masked');
  }

  /**
   * Marks the run's listed payouts paid from the run CSV posted back (`text/csv`) with a
   * `reference` column; any unknown payout or changed amount refuses the whole file (400, lines).
   * Up to 16 MiB; a record over 64 KiB, more than 100 columns, bytes that are not UTF-8 or a
   * control character in any cell refuse it too (400).
   */
  @Post('runs/:run_id/settle')
  @HttpCode(200)
  @Admin('manager')
  @ApiConsumes('text/csv')
  @ApiBody({ schema: { type: 'string' }, description: 'The run CSV plus a reference column' })
  @ApiProblems(400, 401, 403, [404, 'payout_run_not_found'], 413, 415)
  settle(
    @CurrentTenant() tenant: TenantEntity,
    @Param('run_id') runId: string,
    @Req() req: Request,
    @CurrentActor() actor: Actor,
  ): Promise<SettleRunResponse> {
    return readSettleFile(req).then((lines) => this.csv.settle(tenant.id, runId, lines, actor));
  }

  /** The tenant's payouts, newest first, by status, run and partner. */
  @Get()
  @Admin('viewer')
  @ApiProblems(400, 401, 403, 404)
  list(
    @CurrentTenant() tenant: TenantEntity,
    @Query() query: ListPayoutsQueryDto,
  ): Promise<PayoutListResponse> {
    return this.payouts.list(tenant.id, query);
  }

  /** One payout with the bonuses and clawbacks it nets (docs/payouts.md). */
  @Get(':payout_id')
  @Admin('viewer')
  @ApiProblems(401, 403, [404, 'payout_not_found'])
  get(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
  ): Promise<PayoutResponse> {
    return this.payouts.get(tenant.id, payoutId);
  }

  /** pending → canceled by staff; its items return to the partner's balance. */
  @Post(':payout_id/cancel')
  @HttpCode(200)
  @Admin('manager')
  @ApiProblems(401, 403, [404, 'payout_not_found'], [409, 'invalid_transition'])
  cancel(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutResponse> {
    return this.payouts.release(tenant.id, payoutId, 'canceled', null, actor);
  }

  @StaffWrite(PAYOUT_SETTLEMENTS.paid)
  paid(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
    @Body() dto: MarkPayoutPaidDto,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutResponse> {
    return this.payouts.markPaid(tenant.id, payoutId, dto.reference, actor);
  }

  @StaffWrite(PAYOUT_SETTLEMENTS.failed)
  failed(
    @CurrentTenant() tenant: TenantEntity,
    @Param('payout_id') payoutId: string,
    @Body() dto: MarkPayoutFailedDto,
    @CurrentActor() actor: Actor,
  ): Promise<PayoutResponse> {
    return this.payouts.release(tenant.id, payoutId, 'failed', dto.reason, actor);
  }
}
