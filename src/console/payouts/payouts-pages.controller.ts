import { HttpCode, Param, Post } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { IsString, Length } from 'class-validator';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { ValidationFailedError } from '../../common/errors/domain-error';
import { PageQueryDto } from '../../common/http/pagination.dto';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import {
  ListPayoutsQueryDto,
  MarkPayoutFailedDto,
  MarkPayoutPaidDto,
} from '../../payouts/dto/payout-requests.dto';
import { withPayoutDefaults } from '../../tenants/payout-settings';
import { PayoutsCsvService } from '../../payouts/payouts-csv.service';
import { PayoutsService } from '../../payouts/payouts.service';
import { refusal } from '../../pages/lists';
import { PayoutsProgramDocs } from '../payouts-program.openapi';
import { MemberListService } from '../members/member-list.service';
import { PAYOUT_TEXTS } from './payouts.i18n';
import { payoutPage } from './payout.views';
import { payoutsPage } from './payouts.views';

const PAGE_SIZE = 25;
const RUNS_PAGE_SIZE = 10;

class SettleFormDto {
  /** The run CSV with a reference column, as text (the form's textarea). */
  @IsString() @Length(1, 60_000) csv: string;
}

/**
 * `/org/:slug/payouts`: runs, payouts by run and status, the run CSV, settling a run from the
 * bank's file, and each payout's page with mark paid / failed / cancel (docs/console.md). Every
 * change goes through src/payouts' services, as the Admin API's do.
 */
@OrgPagesController('payouts')
export class PayoutsPagesController {
  constructor(
    private readonly payouts: PayoutsService,
    private readonly csv: PayoutsCsvService,
    private readonly partners: MemberListService,
  ) {}

  @OrgView()
  @PayoutsProgramDocs.payouts()
  async list(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    return this.render(ctx, query, {
      notice: query.notice,
      error: query.error,
    });
  }

  @Post('runs')
  @HttpCode(303)
  @OrgAction('manager', 'payouts')
  @PayoutsProgramDocs.run()
  async run(@Org() org: ConsoleCtx): Promise<Redirect> {
    const run = (await this.payouts.run(org.tenant, org.actor))!;
    return new Redirect(
      withQuery(`/org/${org.tenant.slug}/payouts`, {
        run: run.run_id,
        notice: `run:${run.payouts_count}`,
      }),
    );
  }

  /** All or nothing; a refused file shows the page again with each refused line. */
  @Post('runs/:run_id/settle')
  @HttpCode(303)
  @OrgAction('manager', 'payouts')
  @PayoutsProgramDocs.settle()
  async settle(
    @Org() ctx: ConsoleCtx,
    @Param('run_id') runId: string,
    @FormBody() form: SettleFormDto,
  ): Promise<HtmlPage | Redirect> {
    try {
      const settled = await this.csv.settleText(ctx.tenant.id, runId, form.csv, ctx.actor);
      return new Redirect(
        withQuery(`/org/${ctx.tenant.slug}/payouts`, {
          run: runId,
          notice: `settled:${settled.paid_count}`,
        }),
      );
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      return this.render(
        ctx,
        { run: runId },
        { error: PAYOUT_TEXTS[ctx.fmt.lang].settleRefused, status: 400 },
        { csv: form.csv, errors: error.errors ?? [] },
      );
    }
  }

  @OrgView(':payout_id')
  @PayoutsProgramDocs.payout()
  async payout(
    @Org() ctx: ConsoleCtx,
    @Param('payout_id') payoutId: string,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const payout = await this.payouts.get(ctx.tenant.id, payoutId);
    const names = await this.partners.names(ctx.tenant.id, [payout.user_id]);
    return payoutPage(ctx, payout, names, { notice: query.notice, error: query.error });
  }

  @Post(':payout_id/paid')
  @HttpCode(303)
  @OrgAction('manager', 'payouts/:payout_id')
  @PayoutsProgramDocs.paid()
  async paid(
    @Org() org: ConsoleCtx,
    @Param('payout_id') payoutId: string,
    @FormBody() form: MarkPayoutPaidDto,
  ): Promise<Redirect> {
    await this.payouts.markPaid(org.tenant.id, payoutId, form.reference.trim(), org.actor);
    return this.back(org, payoutId, 'paid');
  }

  @Post(':payout_id/failed')
  @HttpCode(303)
  @OrgAction('manager', 'payouts/:payout_id')
  @PayoutsProgramDocs.failed()
  async failed(
    @Org() org: ConsoleCtx,
    @Param('payout_id') payoutId: string,
    @FormBody() form: MarkPayoutFailedDto,
  ): Promise<Redirect> {
    await this.payouts.release(org.tenant.id, payoutId, 'failed', form.reason.trim(), org.actor);
    return this.back(org, payoutId, 'failed');
  }

  @Post(':payout_id/cancel')
  @HttpCode(303)
  @OrgAction('manager', 'payouts/:payout_id')
  @PayoutsProgramDocs.cancel()
  async cancel(@Org() org: ConsoleCtx, @Param('payout_id') payoutId: string): Promise<Redirect> {
    await this.payouts.release(org.tenant.id, payoutId, 'canceled', null, org.actor);
    return this.back(org, payoutId, 'canceled');
  }

  private back(org: ConsoleCtx, payoutId: string, notice: string): Redirect {
    const to = `/org/${org.tenant.slug}/payouts/${encodeURIComponent(payoutId)}`;
    return new Redirect(withQuery(to, { notice }));
  }

  private async render(
    ctx: ConsoleCtx,
    query: Record<string, string>,
    shown: { notice?: string; error?: string; status?: number },
    settle?: { csv: string; errors: { field: string; message: string }[] },
  ): Promise<HtmlPage> {
    const filters = {
      run: query.run || undefined,
      status: query.status || undefined,
      user: query.user || undefined,
    };
    const dto = plainToInstance(ListPayoutsQueryDto, {
      run_id: filters.run,
      status: filters.status,
      user_id: filters.user,
      page: query.page || '1',
      page_size: String(PAGE_SIZE),
    });
    const runsQuery = plainToInstance(PageQueryDto, {
      page: query.runs_page || '1',
      page_size: String(RUNS_PAGE_SIZE),
    });
    const refused = refusal(dto, runsQuery);
    if (refused) {
      shown = { ...shown, error: refused };
      Object.assign(dto, { run_id: undefined, status: undefined, user_id: undefined, page: 1 });
      Object.assign(runsQuery, { page: 1 });
    }
    const [runs, payouts] = await Promise.all([
      this.payouts.runs(ctx.tenant.id, runsQuery),
      this.payouts.list(ctx.tenant.id, dto),
    ]);
    const names = await this.partners.names(
      ctx.tenant.id,
      payouts.items.map((p) => p.user_id),
    );
    return payoutsPage(
      ctx,
      {
        settings: withPayoutDefaults(ctx.tenant.payouts),
        runs,
        payouts,
        names,
        filters: refused ? {} : filters,
        settle,
      },
      shown,
    );
  }
}
