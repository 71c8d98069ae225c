import { Injectable } from '@nestjs/common';
import { offsetOf, pagination } from '../common/http/pagination.dto';
import { formatMoney, labelLanguage, relativeTime, uiLocale } from '../common/i18n/format';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MembersService } from '../members/members.service';
import { PayoutsService } from '../payouts/payouts.service';
import type { EmbedPageQueryDto } from './dto/embed-queries.dto';
import type { EmbedPayoutsResponse } from './dto/embed-payouts.response';
import { tenantBlock, userBlock } from './embed-data.service';

const STATUS_HUMAN: Record<string, Record<string, string>> = {
  ru: { pending: 'В обработке', paid: 'Выплачено', failed: 'Не прошла', canceled: 'Отменена' },
  en: { pending: 'Processing', paid: 'Paid', failed: 'Failed', canceled: 'Canceled' },
};

/** The partner's payout history for the widgets (docs/payouts.md §6): one indexed page. */
@Injectable()
export class EmbedPayoutsService {
  constructor(
    private readonly members: MembersService,
    private readonly payouts: PayoutsService,
  ) {}

  async history(
    tenant: TenantEntity,
    userId: string,
    query: EmbedPageQueryDto,
  ): Promise<EmbedPayoutsResponse> {
    const locale = uiLocale(query.locale, tenant.locale);
    const member = await this.members.getMember(tenant.id, userId);
    const [rows, total] = await this.payouts.forMember(
      tenant.id,
      member.id,
      offsetOf(query),
      query.page_size,
    );
    const words = STATUS_HUMAN[labelLanguage(locale)] ?? STATUS_HUMAN.en;
    return {
      user: userBlock(member, locale),
      tenant: tenantBlock(tenant),
      payouts: rows.map((p) => ({
        payout_id: p.id,
        status: p.status,
        status_human: words[p.status] ?? p.status,
        amount_kopecks: p.amountKopecks,
        amount_formatted: formatMoney(p.amountKopecks, p.currency, locale),
        currency: p.currency,
        created_at: p.createdAt.toISOString(),
        paid_at: p.paidAt?.toISOString() ?? null,
        relative_time: relativeTime(p.createdAt, locale),
      })),
      pagination: pagination(query, total),
    };
  }
}
