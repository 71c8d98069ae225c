import { HttpCode, Param, Post } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { BonusesService } from '../../bonuses/bonuses.service';
import { ListBonusesQueryDto } from '../../bonuses/dto/bonus-requests.dto';
import { DomainError, ValidationFailedError } from '../../common/errors/domain-error';
import { flattenValidationErrors } from '../../common/errors/validation';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { OrgDocs } from '../org-areas.openapi';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { BonusNamesReader } from '../read-model/bonus-names.reader';
import { BONUS_FILTERS } from './bonuses-csv.controller';
import { BonusBackForm, BulkBonusForm, RejectBonusForm } from './bonuses.forms';
import { pick } from '../../pages/lists';
import { type BonusesModel, bonusesPage } from './bonuses.views';

const MAX_BULK = 100;

/**
 * The bonus queue, a console page (docs/console.md): totals, the filtered list, and the approval
 * queue for managers, in the page's language.
 */
@OrgPagesController('bonuses')
export class BonusesPagesController {
  constructor(
    private readonly bonuses: BonusesService,
    private readonly names: BonusNamesReader,
  ) {}

  @OrgView()
  @OrgDocs.bonusQueue()
  async page(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const filters = {
      status: query.status || undefined,
      review: query.review || undefined,
      user_id: query.user_id || undefined,
      created_from: query.created_from || undefined,
      created_to: query.created_to || undefined,
    };
    // The Admin API's list rules; filters it refuses are shown on the page, with the totals.
    const dto = plainToInstance(ListBonusesQueryDto, {
      ...filters,
      page: query.page || '1',
      page_size: '50',
    });
    const refused = flattenValidationErrors(validateSync(dto, { whitelist: true }));
    const [list, totals] = await Promise.all([
      refused.length ? undefined : this.bonuses.list(ctx.tenant.id, dto),
      this.bonuses.totalsByStatus(ctx.tenant.id),
    ]);
    const names = await this.names.of(ctx.tenant.id, list?.items.map((b) => b.bonus_id) ?? []);
    const model: BonusesModel = {
      filters,
      totals: totals.map((t) => ({
        status: t.status,
        count: t.count,
        amountKopecks: t.amountKopecks,
        currency: t.currency,
      })),
      list: list && {
        page: list.pagination.page,
        totalPages: list.pagination.total_pages,
        items: list.items.map((b) => ({
          bonus_id: b.bonus_id,
          user_id: b.user_id,
          member_id: names.get(b.bonus_id)?.member_id ?? null,
          partner_name: names.get(b.bonus_id)?.partner_name ?? null,
          customer_name: names.get(b.bonus_id)?.customer_name ?? null,
          amount_kopecks: b.amount_kopecks,
          currency: b.currency,
          status: b.status,
          source_type: b.source_type,
          tier: b.tier ?? null,
          explanation: b.explanation,
          created_at: b.created_at,
          reason: b.reason ?? null,
          review: b.review,
        })),
      },
    };
    return bonusesPage(ctx, model, {
      notice: query.notice,
      approved: query.approved,
      rejected: query.rejected,
      done: query.done,
      stale: query.stale,
      error: refused.length
        ? refused.map((x) => `${x.field}: ${x.message}`).join('; ')
        : query.error,
    });
  }

  @Post(':bonus_id/approve')
  @HttpCode(303)
  @OrgAction('manager', 'bonuses')
  @OrgDocs.approve()
  async approve(
    @Org() ctx: ConsoleCtx,
    @Param('bonus_id') bonusId: string,
    @FormBody() form: BonusBackForm,
  ): Promise<Redirect> {
    await this.bonuses.approve(ctx.tenant.id, bonusId, ctx.actor);
    return back(ctx, form, { approved: bonusId });
  }

  @Post(':bonus_id/reject')
  @HttpCode(303)
  @OrgAction('manager', 'bonuses')
  @OrgDocs.reject()
  async reject(
    @Org() ctx: ConsoleCtx,
    @Param('bonus_id') bonusId: string,
    @FormBody() form: RejectBonusForm,
  ): Promise<Redirect> {
    const reason = form.reasonFor(bonusId);
    if (!reason) throw new ValidationFailedError([], 'A rejection needs a reason.');
    await this.bonuses.reject(ctx.tenant.id, bonusId, reason, ctx.actor);
    return back(ctx, form, { rejected: bonusId });
  }

  /** Up to 100 at once; each transition still happens once and emits its event once. */
  @Post('bulk')
  @HttpCode(303)
  @OrgAction('manager', 'bonuses')
  @OrgDocs.bulk()
  async bulk(@Org() ctx: ConsoleCtx, @FormBody() form: BulkBonusForm): Promise<Redirect> {
    const { ids, bulk_reason: reason } = form;
    const reject = form.action === 'reject';
    if (!ids.length) throw new ValidationFailedError([], 'Select at least one bonus.');
    if (ids.length > MAX_BULK) {
      throw new ValidationFailedError([], `Select at most ${MAX_BULK} bonuses.`);
    }
    if (reject && !reason) throw new ValidationFailedError([], 'A rejection needs a reason.');
    let done = 0;
    const failed: string[] = [];
    for (const id of ids) {
      try {
        if (reject) await this.bonuses.reject(ctx.tenant.id, id, reason!, ctx.actor);
        else await this.bonuses.approve(ctx.tenant.id, id, ctx.actor);
        done++;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        failed.push(id);
      }
    }
    return back(ctx, form, {
      done: `${reject ? 'reject' : 'approve'}:${done}`,
      stale: failed.length ? failed.join(',') : undefined,
    });
  }
}

/**
 * Back to the queue with its filters and page (the form's `back`); the page says what happened in
 * its language (BonusesShown).
 */
function back(
  ctx: ConsoleCtx,
  form: BonusBackForm,
  message: Record<string, string | undefined>,
): Redirect {
  const kept = pick(Object.fromEntries(new URLSearchParams(form.back ?? '')), [
    ...BONUS_FILTERS,
    'page',
  ]);
  return new Redirect(withQuery(`/org/${ctx.tenant.slug}/bonuses`, { ...kept, ...message }));
}
