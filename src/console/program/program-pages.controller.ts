import { HttpCode, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { type HtmlPage, PageException, Redirect, withQuery } from '../../common/pages/page';
import { notAllowedPage } from '../org-page.views';
import type { GroupResponse } from '../../groups/dto/group.response';
import { GroupNotFoundError } from '../../groups/group.errors';
import { GroupsService } from '../../groups/groups.service';
import { OffersService } from '../../offers/offers.service';
import type { Program } from '../../tenants/program';
import type { BacktestTarget } from '../../backtest/dto/backtest.dto';
import { ProgramBacktests } from './backtest-cache';
import { TenantsService } from '../../tenants/tenants.service';
import { PayoutsProgramDocs } from '../payouts-program.openapi';
import {
  DEFAULT_PREVIEW_KOPECKS,
  FORM_ERRORS,
  type FormError,
  formValues,
  moneyText,
  programFromValues,
  type ProgramFormValues,
  valuesFromBody,
  withIntent,
} from './program.form';
import { programPage, type ProgramPageData, type ProgramTarget } from './program.views';
import {
  promotionFromBody,
  promotionFromValues,
  promotionRefusal,
  promotionValues,
  type PromotionValues,
} from './promotion.form';

/** The most groups the page lists (the Admin API's largest page). */
const GROUPS_SHOWN = 100;

/**
 * `/org/:slug/program`: the tenant's default program, each offer's and each group's (with the
 * group's promotion), edited whole (phases, tiers, qualification, compression) with a preview of
 * the cascade on an example amount. Preview posts the form and shows its cascade without saving;
 * the add/remove buttons post it with their intent and show it changed; Save stores it through
 * TenantsService, OffersService or GroupsService, as the Admin API's PATCH routes do.
 */
@OrgPagesController('program')
export class ProgramPagesController {
  constructor(
    private readonly tenants: TenantsService,
    private readonly offers: OffersService,
    private readonly groups: GroupsService,
    private readonly backtests: ProgramBacktests,
  ) {}

  @OrgView()
  @PayoutsProgramDocs.program()
  async show(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const lists = await this.lists(ctx);
    const target = await this.target(ctx.tenant.id, lists, query.offer, query.group);
    const given = /^\d{1,15}$/.test(query.amount_kopecks ?? '')
      ? moneyText(Number(query.amount_kopecks))
      : query.amount;
    const own = target?.kind === 'default' ? ctx.tenant.program : ownProgram(target);
    const values = formValues(own ?? ctx.tenant.program, DEFAULT_PREVIEW_KOPECKS);
    values.amount = given || moneyText(DEFAULT_PREVIEW_KOPECKS);
    const promotion =
      target?.kind === 'group' ? promotionValues(target.group.promote_to) : undefined;
    const missing = (query.offer || query.group) && !target;
    return this.render(ctx, lists, target ?? { kind: 'default' }, own === null, values, promotion, {
      notice: query.notice,
      error: missing ? `No offer or group "${query.offer ?? query.group}".` : query.error,
    });
  }

  @Post()
  @HttpCode(200)
  @OrgAction('manager', 'program')
  @PayoutsProgramDocs.saveProgram()
  async submit(@Org() ctx: ConsoleCtx, @Req() req: Request): Promise<HtmlPage | Redirect> {
    const body = req.body as Record<string, unknown>;
    const lists = await this.lists(ctx);
    const asked = (name: string) =>
      typeof body[name] === 'string' ? String(body[name]) : undefined;
    const target = await this.target(ctx.tenant.id, lists, asked('offer'), asked('group'));
    if (!target) {
      const id = asked('offer') ?? asked('group') ?? '';
      return new Redirect(
        withQuery(`/org/${ctx.tenant.slug}/program`, { error: `No offer or group "${id}".` }),
      );
    }
    const intent = asked('intent') ?? 'preview';
    const save = intent === 'save';
    // As the Admin API: the default program is the tenant's (PATCH …/tenants/:slug, owner); an
    // offer's (PATCH …/offers/:id) and a group's (PATCH …/groups/:id) are managers'.
    if (save && target.kind === 'default' && !ctx.can('owner')) {
      throw new PageException(
        notAllowedPage(403, 'Saving the default program needs the owner role.'),
      );
    }
    const e = FORM_ERRORS[ctx.fmt.lang];
    const useDefault = target.kind !== 'default' && body.use_default === 'on';
    const promotion = target.kind === 'group' ? promotionFromBody(body) : undefined;
    const values = valuesFromBody(body);
    const show = (
      v: ProgramFormValues,
      shown: { notice?: string; status?: number },
      errors: FormError[] = [],
    ) => this.render(ctx, lists, target, useDefault, v, promotion, shown, errors);
    const changed = withIntent(values, intent);
    if (changed) return show(changed, {});
    const parsed = programFromValues(values, e);
    const promoted = promotion ? promotionFromValues(promotion, e) : { promote_to: undefined };
    const errors = [
      ...(!(save && useDefault) && 'errors' in parsed ? parsed.errors : []),
      ...('errors' in promoted ? promoted.errors : []),
    ];
    if (errors.length) return show(values, { status: 400 }, errors);
    if (!save) return show(values, { notice: 'previewed' });
    const program = useDefault || 'errors' in parsed ? null : parsed.program;
    if (target.kind === 'offer') {
      await this.offers.setProgram(ctx.tenant.id, target.offer.offer_id, program, ctx.actor);
    } else if (target.kind === 'group') {
      const promoteTo = 'errors' in promoted ? undefined : promoted.promote_to;
      try {
        await this.groups.update(
          ctx.tenant.id,
          target.group.group_id,
          { program, promote_to: promoteTo },
          ctx.actor,
        );
      } catch (error) {
        const refused = promotionRefusal(error, e);
        if (!refused) throw error;
        return show(values, { status: 400 }, refused);
      }
    } else {
      await this.tenants.update(ctx.tenant, { program: program! }, ctx.actor);
    }
    return new Redirect(
      withQuery(`/org/${ctx.tenant.slug}/program`, {
        offer: target.kind === 'offer' ? target.offer.offer_id : undefined,
        group: target.kind === 'group' ? target.group.group_id : undefined,
        notice: 'saved',
      }),
    );
  }

  private async lists(ctx: ConsoleCtx) {
    const [offers, groups] = await Promise.all([
      this.offers.list(ctx.tenant.id),
      this.groups.list(ctx.tenant.id, { page: 1, page_size: GROUPS_SHOWN }),
    ]);
    return { offers: offers.items, groups: groups.items };
  }

  /**
   * The target asked for (no id: the default), or undefined when there is no such one; a group
   * past the listed ones is read by its id.
   */
  private async target(
    tenantId: string,
    lists: Awaited<ReturnType<ProgramPagesController['lists']>>,
    offerId: string | undefined,
    groupId: string | undefined,
  ): Promise<ProgramTarget | undefined> {
    if (offerId) {
      const offer = lists.offers.find((o) => o.offer_id === offerId);
      return offer && { kind: 'offer', offer };
    }
    if (groupId) {
      const group =
        lists.groups.find((g) => g.group_id === groupId) ??
        (await this.groups.get(tenantId, groupId).catch((error: unknown) => {
          if (error instanceof GroupNotFoundError) return undefined;
          throw error;
        }));
      return group && { kind: 'group', group };
    }
    return { kind: 'default' };
  }

  private async render(
    ctx: ConsoleCtx,
    lists: { offers: ProgramPageData['offers']; groups: GroupResponse[] },
    target: ProgramTarget,
    useDefault: boolean,
    values: ProgramFormValues,
    promotion: PromotionValues | undefined,
    shown: { notice?: string; error?: string; status?: number },
    errors: FormError[] = [],
  ): Promise<HtmlPage> {
    const parsed = programFromValues(values, FORM_ERRORS[ctx.fmt.lang]);
    const shownErrors = errors.length ? errors : 'errors' in parsed ? parsed.errors : [];
    const draft = 'errors' in parsed || errors.length ? undefined : parsed.program;
    return programPage(
      ctx,
      {
        ...lists,
        target,
        useDefault,
        values,
        promotion,
        program: draft,
        errors: shownErrors,
        backtests: draft && (await this.backtests.of(ctx.tenant, backtestTarget(target), draft)),
      },
      shown,
    );
  }
}

/** The program a draft on this page would replace, as the backtest names it. */
function backtestTarget(target: ProgramTarget): BacktestTarget {
  if (target.kind === 'offer') return { offer_id: target.offer.offer_id };
  if (target.kind === 'group') return { group_id: target.group.group_id };
  return 'default';
}

/** An offer's or group's own program (null: it uses the default). */
function ownProgram(target: ProgramTarget | undefined): Program | null {
  if (target?.kind === 'offer') return (target.offer.program as Program | null) ?? null;
  if (target?.kind === 'group') return target.group.program as Program | null;
  return null;
}
