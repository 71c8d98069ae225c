import { HttpCode, Param, Post } from '@nestjs/common';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController, OrgView } from '../org-page';
import { PageQuery } from '../../common/http/single-query-values.pipe';
import { type HtmlPage, Redirect, withQuery } from '../../common/pages/page';
import { MembersService } from '../../members/members.service';
import { ConsoleDocs } from '../console.openapi';
import { parseList } from '../../pages/lists';
import { ListPartnersQueryDto } from './partners.dto';
import { MemberListService } from './member-list.service';
import { partnerPage, partnersPage } from './members.views';

/** `/org/:slug/partners`: the list (search, sort, pages), a partner's page, (de)activation. */
@OrgPagesController('partners')
export class MembersPagesController {
  constructor(
    private readonly partners: MemberListService,
    private readonly members: MembersService,
  ) {}

  @OrgView()
  @ConsoleDocs.partners()
  async list(
    @Org() ctx: ConsoleCtx,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const filters = { q: query.q || undefined, sort: query.sort || undefined };
    const { dto, error } = parseList(ListPartnersQueryDto, filters, query.page || '1');
    const list = dto && (await this.partners.list(ctx.tenant.id, dto));
    return partnersPage(ctx, filters, list, { notice: query.notice, error: error ?? query.error });
  }

  @OrgView(':user_id')
  @ConsoleDocs.partner()
  async detail(
    @Org() ctx: ConsoleCtx,
    @Param('user_id') userId: string,
    @PageQuery() query: Record<string, string>,
  ): Promise<HtmlPage> {
    const partner = await this.partners.detail(ctx.tenant.id, userId);
    const member = await this.members.findMember(ctx.tenant.id, partner.user.user_id);
    const ban = {
      banned_at: member?.bannedAt?.toISOString() ?? null,
      ban_reason: member?.banReason ?? null,
    };
    const erasedAt = member?.erasedAt?.toISOString() ?? null;
    return partnerPage(ctx, partner, { notice: query.notice, error: query.error }, ban, erasedAt);
  }

  @Post(':user_id/deactivate')
  @HttpCode(303)
  @OrgAction('manager', 'partners/:user_id')
  @ConsoleDocs.setActive(false)
  deactivate(@Org() org: ConsoleCtx, @Param('user_id') userId: string): Promise<Redirect> {
    return this.setActive(org, userId, false);
  }

  @Post(':user_id/activate')
  @HttpCode(303)
  @OrgAction('manager', 'partners/:user_id')
  @ConsoleDocs.setActive(true)
  activate(@Org() org: ConsoleCtx, @Param('user_id') userId: string): Promise<Redirect> {
    return this.setActive(org, userId, true);
  }

  private async setActive(org: ConsoleCtx, userId: string, active: boolean): Promise<Redirect> {
    const member = await this.members.setActive(org.tenant.id, userId, active, org.actor);
    const back = `/org/${org.tenant.slug}/partners/${encodeURIComponent(member.user_id)}`;
    return new Redirect(withQuery(back, { notice: active ? 'activated' : 'deactivated' }));
  }
}
