import { HttpCode, Param, Post } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { BountiesService } from '../../bounties/bounties.service';
import { BOUNTY_METRICS, type BountyMetric } from '../../bounties/bounty.entity';
import { IsInstant } from '../../common/http/instant';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { FormBody, FormText } from '../../common/pages/form';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { Optional } from '../../common/validation/optional';
import { GROUP_ID } from '../../groups/dto/group-requests.dto';
import { GroupsService } from '../../groups/groups.service';
import { consoleActionDocs, consolePageDocs, LANG, refusedOn } from '../org-page.openapi';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { type BountiesModel, bountiesPage } from './bounties.views';

const PAGE_SIZE = 20;
/** The partners shown under each bounty, furthest first. */
const TOP = 5;
const AMOUNT = /^\d{1,13}(?:[.,]\d{1,2})?$/;

const toNumber = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;

/** The create form: the Admin API's fields, the bonus in roubles (or the currency's units). */
export class CreateBountyForm {
  @FormText() @IsString() @Length(1, 200, { message: 'Give it a name.' }) name: string;

  @Optional()
  @FormText()
  @Matches(GROUP_ID, { message: 'Choose one of the groups.' })
  group_id?: string;

  @IsIn(BOUNTY_METRICS, { message: 'Choose what counts.' }) metric: BountyMetric;

  @Transform(toNumber)
  @IsInt({ message: 'The threshold is a whole number, at least 1.' })
  @Min(1, { message: 'The threshold is a whole number, at least 1.' })
  @Max(Number.MAX_SAFE_INTEGER)
  threshold: number;

  @FormText()
  @Matches(AMOUNT, { message: 'The bonus is an amount such as 5000 or 5000,50.' })
  amount: string;

  @FormText()
  @Matches(/^[A-Z]{3}$/, { message: 'The currency is three capital letters, such as RUB.' })
  currency: string;

  @FormText() @IsInstant({ message: 'Give the start as a date and time (UTC).' }) starts_at: string;

  @Optional()
  @FormText()
  @IsInstant({ message: 'Give the end as a date and time (UTC), or leave it empty.' })
  ends_at?: string;
}

const BOUNTIES = {
  redirect: 'Back to the page, with `notice` or `error`',
  back: '/org/{slug}/bounties',
};

/**
 * The console's bounties page (docs/console.md): the tenant's bounties with each one's partners
 * furthest on, a form to create one and a button to end one (managers), through BountiesService
 * as the Admin API does.
 */
@OrgPagesController('bounties')
export class BountiesPagesController {
  constructor(
    private readonly bounties: BountiesService,
    private readonly groups: GroupsService,
  ) {}

  @OrgView()
  @consolePageDocs(
    "The bounties, each with its partners' progress, and the form to create one",
    { page: { type: 'integer', minimum: 1 }, lang: LANG },
    refusedOn(),
  )
  async page(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const page = Math.min(Math.max(Number.parseInt(query.page ?? '1', 10) || 1, 1), 100_000);
    const [list, groups] = await Promise.all([
      this.bounties.list(ctx.tenant.id, { page, page_size: PAGE_SIZE }),
      this.groups.list(ctx.tenant.id, { page: 1, page_size: 100 }),
    ]);
    const items = await Promise.all(
      list.items.map(async (bounty) => {
        const { rows } = await this.bounties.progressPage(ctx.tenant.id, bounty.bounty_id, {
          page: 1,
          page_size: TOP,
        });
        return { bounty, top: rows };
      }),
    );
    const model: BountiesModel = {
      groups: groups.items.map((g) => ({ id: g.group_id, name: g.name })),
      items,
      page,
      totalPages: list.pagination.total_pages,
      notice: query.notice,
      error: query.error,
    };
    return bountiesPage(ctx, model);
  }

  @Post()
  @HttpCode(303)
  @OrgAction('manager', 'bounties')
  @consoleActionDocs({
    ...BOUNTIES,
    refused: refusedOn(),
    summary: 'Creates a bounty (docs/money.md, "Bounties")',
    description:
      "The Admin API's fields, with `amount` in the currency's units (`5000,50`); a refused form comes back with what is wrong.",
    fields: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      group_id: { type: 'string' },
      metric: { type: 'string', enum: [...BOUNTY_METRICS] },
      threshold: { type: 'integer', minimum: 1 },
      amount: { type: 'string', pattern: AMOUNT.source },
      currency: { type: 'string', pattern: '^[A-Z]{3}$' },
      starts_at: { type: 'string' },
      ends_at: { type: 'string' },
    },
    required: ['name', 'metric', 'threshold', 'amount', 'currency', 'starts_at'],
  })
  async create(@Org() ctx: ConsoleCtx, @FormBody() form: CreateBountyForm): Promise<Redirect> {
    const [units, cents = ''] = form.amount.split(/[.,]/);
    await this.bounties.create(
      ctx.tenant.id,
      {
        name: form.name,
        group_id: form.group_id,
        metric: form.metric,
        threshold: form.threshold,
        amount_kopecks: Number(units) * 100 + Number(cents.padEnd(2, '0')),
        currency: form.currency,
        starts_at: form.starts_at,
        ends_at: form.ends_at,
      },
      ctx.actor,
    );
    return new Redirect(withQuery(`/org/${ctx.tenant.slug}/bounties`, { notice: 'created' }));
  }

  @Post(':bounty_id/end')
  @HttpCode(303)
  @OrgAction('manager', 'bounties')
  @consoleActionDocs({
    ...BOUNTIES,
    refused: refusedOn('bounty'),
    summary: 'Ends a bounty now (its `ends_at` becomes now)',
    description: 'Partners who reached it keep their bonus.',
    fields: {},
    required: [],
  })
  async end(@Org() ctx: ConsoleCtx, @Param('bounty_id') bountyId: string): Promise<Redirect> {
    await this.bounties.update(
      ctx.tenant.id,
      bountyId,
      { ends_at: new Date().toISOString() },
      ctx.actor,
    );
    return new Redirect(withQuery(`/org/${ctx.tenant.slug}/bounties`, { notice: 'ended' }));
  }
}
