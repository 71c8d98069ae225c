import { HttpCode, Param, Post } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsString, Length } from 'class-validator';
import { Org, OrgAction, type ConsoleCtx, OrgPagesController } from '../org-page';
import { FormBody } from '../../common/pages/form';
import { Redirect, withQuery } from '../../common/pages/page';
import { BansService } from '../../bans/bans.service';
import { RecordDocs } from '../console.openapi';

/** The ban form of a partner's page: why, 1–500 characters after trimming. */
export class BanMemberForm {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 500, { message: 'A ban needs a reason (at most 500 characters).' })
  reason: string;
}

/**
 * `POST /org/:slug/partners/:user_id/ban`: BansService's ban (docs/fraud.md), which deactivates
 * the partner, rejects their pending bonuses, disables their links and records the audit entry.
 */
@OrgPagesController('partners')
export class MemberBanPagesController {
  constructor(private readonly bans: BansService) {}

  @Post(':user_id/ban')
  @HttpCode(303)
  @OrgAction('manager', 'partners/:user_id')
  @RecordDocs.ban()
  async ban(
    @Org() org: ConsoleCtx,
    @Param('user_id') userId: string,
    @FormBody() form: BanMemberForm,
  ): Promise<Redirect> {
    const banned = await this.bans.ban(org.tenant.id, userId, form.reason, org.actor);
    const back = `/org/${org.tenant.slug}/partners/${encodeURIComponent(banned.user_id)}`;
    return new Redirect(withQuery(back, { notice: 'banned' }));
  }

  /** Lifts the ban: the partner is active again and their links work; nothing rejected returns. */
  @Post(':user_id/unban')
  @HttpCode(303)
  @OrgAction('manager', 'partners/:user_id')
  @RecordDocs.unban()
  async unban(@Org() org: ConsoleCtx, @Param('user_id') userId: string): Promise<Redirect> {
    const lifted = await this.bans.unban(org.tenant.id, userId, org.actor);
    const back = `/org/${org.tenant.slug}/partners/${encodeURIComponent(lifted.user_id)}`;
    return new Redirect(withQuery(back, { notice: 'unbanned' }));
  }
}
