import { HttpCode, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { type HtmlPage, PageException, Redirect, withQuery } from '../../common/pages/page';
import { notAllowedPage } from '../org-page.views';
import type { OfferResponse } from '../../offers/dto/offer.response';
import { OffersService } from '../../offers/offers.service';
import type { Program } from '../../tenants/program';
import { TenantsService } from '../../tenants/tenants.service';
import { PayoutsProgramDocs } from '../payouts-program.openapi';
import {
  DEFAULT_PREVIEW_KOPECKS,
  FORM_ERRORS,
  formValues,
  hasHiddenRules,
  keepingRules,
  moneyText,
  previewCascade,
  programFromValues,
  type ProgramFormValues,
  valuesFromBody,
} from './program.form';
import { programPage } from './program.views';

/**
 * `/org/:slug/program`: the tenant's default program and each offer's, edited with a preview of
 * the cascade on an example amount (the dry run's arithmetic). The Preview button posts the form
 * and shows its cascade without saving; Save stores it through TenantsService or OffersService,
 * as `PATCH /admin/v1/tenants/:slug` does.
 */
@OrgPagesController('program')
export class ProgramPagesController {
  constructor(
    private readonly tenants: TenantsService,
    private readonly offers: OffersService,
  ) {}

  @OrgView()
  @PayoutsProgramDocs.program()
  async show(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const offers = (await this.offers.list(ctx.tenant.id)).items;
    const offer = query.offer ? offers.find((o) => o.offer_id === query.offer) : undefined;
    const given = /^\d{1,15}$/.test(query.amount_kopecks ?? '')
      ? moneyText(Number(query.amount_kopecks))
      : query.amount;
    const program = (offer?.program as Program | null | undefined) ?? ctx.tenant.program;
    const values = { ...formValues(program, DEFAULT_PREVIEW_KOPECKS), amount: given ?? '' };
    if (!given) values.amount = moneyText(DEFAULT_PREVIEW_KOPECKS);
    return this.render(ctx, offers, offer, !!offer && !offer.program, values, {
      notice:
        query.notice ?? (program.phases ? 'phased' : hasHiddenRules(program) ? 'ruled' : undefined),
      error: query.offer && !offer ? `No offer "${query.offer}".` : query.error,
    });
  }

  @Post()
  @HttpCode(200)
  @OrgAction('manager', 'program')
  @PayoutsProgramDocs.saveProgram()
  async submit(@Org() ctx: ConsoleCtx, @Req() req: Request): Promise<HtmlPage | Redirect> {
    const body = req.body as Record<string, unknown>;
    const offers = (await this.offers.list(ctx.tenant.id)).items;
    const offerId = typeof body.offer === 'string' ? body.offer : undefined;
    const offer = offerId ? offers.find((o) => o.offer_id === offerId) : undefined;
    if (offerId && !offer) {
      return new Redirect(
        withQuery(`/org/${ctx.tenant.slug}/program`, { error: `No offer "${offerId}".` }),
      );
    }
    const useDefault = !!offer && body.use_default === 'on';
    // As the Admin API: the default program is the tenant's (PATCH …/tenants/:slug, owner), an
    // offer's is the offer's (manager).
    if (body.intent === 'save' && !offer && !ctx.can('owner')) {
      throw new PageException(
        notAllowedPage(403, 'Saving the default program needs the owner role.'),
      );
    }
    const values = valuesFromBody(body);
    const save = body.intent === 'save';
    if (save && useDefault) {
      await this.offers.setProgram(ctx.tenant.id, offer.offer_id, null, ctx.actor);
      return this.saved(ctx, offer);
    }
    const parsed = programFromValues(values, FORM_ERRORS[ctx.fmt.lang]);
    if ('errors' in parsed) {
      return this.render(ctx, offers, offer, useDefault, values, { status: 400 }, parsed.errors);
    }
    if (!save) {
      return this.render(ctx, offers, offer, useDefault, values, { notice: 'previewed' });
    }
    // The rules the form does not show (qualification, compression) stay as they were.
    const program = keepingRules(
      (offer?.program as Program | null | undefined) ?? ctx.tenant.program,
      parsed.program,
    );
    if (offer) {
      await this.offers.setProgram(ctx.tenant.id, offer.offer_id, program, ctx.actor);
    } else {
      await this.tenants.update(ctx.tenant, { program }, ctx.actor);
    }
    return this.saved(ctx, offer);
  }

  private saved(org: ConsoleCtx, offer: OfferResponse | undefined): Redirect {
    return new Redirect(
      withQuery(`/org/${org.tenant.slug}/program`, { offer: offer?.offer_id, notice: 'saved' }),
    );
  }

  private render(
    ctx: ConsoleCtx,
    offers: OfferResponse[],
    offer: OfferResponse | undefined,
    useDefault: boolean,
    values: ProgramFormValues,
    shown: { notice?: string; error?: string; status?: number },
    errors: { field: string; message: string }[] = [],
  ): HtmlPage {
    const parsed = errors.length ? undefined : programFromValues(values, FORM_ERRORS[ctx.fmt.lang]);
    const preview =
      parsed && !('errors' in parsed)
        ? {
            rows: previewCascade(parsed.program.tiers, parsed.amount),
            amount_kopecks: parsed.amount,
          }
        : undefined;
    const shownErrors = errors.length ? errors : parsed && 'errors' in parsed ? parsed.errors : [];
    return programPage(
      ctx,
      { offers, offer, useDefault, values, preview, errors: shownErrors },
      shown,
    );
  }
}
