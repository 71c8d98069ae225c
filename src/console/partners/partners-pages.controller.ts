import {
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
} from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Request, Response } from 'express';
import { Public } from '../../common/access/access.decorators';
import { Org, OrgAction, type OrgContext, OrgPage } from '../../admin-pages/org-page.guard';
import { PageSecurity } from '../../common/http/page-security';
import { SingleQueryValues } from '../../common/http/single-query-values.pipe';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { PageFilter } from '../../common/pages/page.filter';
import { Pages } from '../../common/pages/pages.decorator';
import { UsersService } from '../../members/users.service';
import { ConsoleDocs } from '../console.openapi';
import { parseList } from '../lists';
import { consoleCtx } from '../views/layout';
import { ListPartnersQueryDto } from './partners.dto';
import { PartnersService } from './partners.service';
import { partnerPage, partnersPage } from './partners.views';

/** `/org/:slug/partners`: the list (search, sort, pages), a partner's page, (de)activation. */
@ApiTags('admin-pages')
@Controller('org/:slug/partners')
@Public()
@Pages()
export class PartnersPagesController {
  constructor(
    private readonly partners: PartnersService,
    private readonly users: UsersService,
    private readonly security: PageSecurity,
  ) {}

  @Get()
  @OrgPage('viewer')
  @ConsoleDocs.partners()
  async list(
    @Org() org: OrgContext,
    @Req() req: Request,
    @Query(SingleQueryValues) query: Record<string, string>,
  ): Promise<HtmlPage> {
    const ctx = consoleCtx(org, req, this.security);
    const filters = { q: query.q || undefined, sort: query.sort || undefined };
    const { dto, error } = parseList(ListPartnersQueryDto, filters, query.page || '1');
    const list = dto && (await this.partners.list(org.tenant.id, dto));
    return partnersPage(ctx, filters, list, { notice: query.notice, error: error ?? query.error });
  }

  @Get(':user_id')
  @OrgPage('viewer')
  @ConsoleDocs.partner()
  async detail(
    @Org() org: OrgContext,
    @Req() req: Request,
    @Param('user_id') userId: string,
    @Query(SingleQueryValues) query: Record<string, string>,
  ): Promise<HtmlPage> {
    const ctx = consoleCtx(org, req, this.security);
    const partner = await this.partners.detail(org.tenant.id, userId);
    const member = await this.users.findMember(org.tenant.id, partner.user.user_id);
    const ban = {
      banned_at: member?.bannedAt?.toISOString() ?? null,
      ban_reason: member?.banReason ?? null,
    };
    return partnerPage(ctx, partner, { notice: query.notice, error: query.error }, ban);
  }

  @Post(':user_id/deactivate')
  @HttpCode(303)
  @OrgAction('manager', 'partners/:user_id')
  @ConsoleDocs.setActive(false)
  deactivate(@Org() org: OrgContext, @Param('user_id') userId: string): Promise<Redirect> {
    return this.setActive(org, userId, false);
  }

  @Post(':user_id/activate')
  @HttpCode(303)
  @OrgAction('manager', 'partners/:user_id')
  @ConsoleDocs.setActive(true)
  activate(@Org() org: OrgContext, @Param('user_id') userId: string): Promise<Redirect> {
    return this.setActive(org, userId, true);
  }

  private async setActive(org: OrgContext, userId: string, active: boolean): Promise<Redirect> {
    const member = await this.users.setActive(org.tenant.id, userId, active, org.actor);
    const back = `/org/${org.tenant.slug}/partners/${encodeURIComponent(member.user_id)}`;
    return new Redirect(withQuery(back, { notice: active ? 'activated' : 'deactivated' }));
  }
}

/** `/org/:slug/partners.csv`: the list with the page's search and sort, streamed. */
@ApiTags('admin-pages')
@Controller('org/:slug')
@Public()
@UseFilters(PageFilter)
export class PartnersCsvController {
  constructor(private readonly partners: PartnersService) {}

  @Get('partners.csv')
  @OrgPage('viewer')
  @ConsoleDocs.partnersCsv()
  async csv(
    @Org() org: OrgContext,
    @Query(SingleQueryValues) query: Record<string, string>,
    @Res() res: Response,
  ): Promise<void> {
    const dto = plainToInstance(ListPartnersQueryDto, {
      q: query.q || undefined,
      sort: query.sort || undefined,
    });
    if (validateSync(dto, { whitelist: true }).length) {
      res.status(400).type('text/plain').send('Bad search or sort.');
      return;
    }
    const { stream, done } = await this.partners.csv(org.tenant.id, dto);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Disposition', `attachment; filename="partners-${org.tenant.slug}.csv"`);
    stream.on('error', (error: Error) => {
      done(error);
      res.destroy(error);
    });
    stream.on('end', () => done());
    res.on('close', () => done());
    stream.pipe(res);
  }
}
