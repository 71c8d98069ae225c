import { Injectable } from '@nestjs/common';
import { pagination } from '../../common/http/pagination.dto';
import { ListPayoutsQueryDto } from '../../payouts/dto/payout-requests.dto';
import { LedgerService } from '../../payouts/ledger/ledger.service';
import { PayoutDetailsService } from '../../payouts/payout-details/payout-details.service';
import { PayoutsService } from '../../payouts/payouts.service';
import { MemberNotFoundError } from '../../members/member.errors';
import type { ListPartnersQueryDto } from './partners.dto';
import type { PartnerDetailResponse, PartnerListResponse } from './partners.response';
import { MemberListReader } from '../read-model/members.reader';

/** Payouts shown on a partner's page, newest first. */
const RECENT_PAYOUTS = 5;

/** The partners of the console and their API twins: the same data for the page and the JSON. */
@Injectable()
export class MemberListService {
  constructor(
    private readonly repo: MemberListReader,
    private readonly ledger: LedgerService,
    private readonly payouts: PayoutsService,
    private readonly payoutDetails: PayoutDetailsService,
  ) {}

  async list(tenantId: string, query: ListPartnersQueryDto): Promise<PartnerListResponse> {
    const [items, total] = await this.repo.list(tenantId, query, query);
    return { items, pagination: pagination(query, total) };
  }

  /** One partner by `mbr_…` or `usr_…`; another tenant's id is 404 like a missing one. */
  async detail(tenantId: string, ref: string): Promise<PartnerDetailResponse> {
    const found = await this.repo.detail(tenantId, ref);
    if (!found) throw new MemberNotFoundError(ref);
    const recent = Object.assign(new ListPayoutsQueryDto(), {
      user_id: found.user.user_id,
      page: 1,
      page_size: RECENT_PAYOUTS,
    });
    const [balances, payouts, details] = await Promise.all([
      this.ledger.balances(tenantId, found.user.user_id),
      this.payouts.list(tenantId, recent),
      this.payoutDetails.getMasked(tenantId, found.user.user_id),
    ]);
    return {
      ...found,
      payout_balances: balances.map((b) => ({
        currency: b.currency,
        available_kopecks: b.availableKopecks,
        in_payout_kopecks: b.inPayoutKopecks,
        paid_kopecks: b.paidKopecks,
      })),
      payouts: { items: payouts.items, total: payouts.pagination.total },
      payout_details: details && { method: details.method, masked: details.masked },
    };
  }

  /** Partners of payouts and other lists by `usr_…`: member id and display name. */
  names(tenantId: string, serviceUserIds: string[]) {
    return this.repo.names(tenantId, serviceUserIds);
  }

  csv(tenantId: string, query: Pick<ListPartnersQueryDto, 'q' | 'sort'>) {
    return this.repo.csv(tenantId, query);
  }
}
