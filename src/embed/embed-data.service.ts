import { Injectable } from '@nestjs/common';
import type { BonusEntity } from '../bonuses/bonus.entity';
import { BonusesService, ruleResponse } from '../bonuses/bonuses.service';
import { offsetOf, pagination } from '../common/http/pagination.dto';
import {
  formatDay,
  formatMoney,
  label,
  relativeTime,
  type UiLocale,
  uiLocale,
} from '../common/i18n/format';
import type { LeadEntity } from '../leads/lead.entity';
import { type Balance, LedgerService } from '../payouts/ledger/ledger.service';
import { LeadsService } from '../leads/leads.service';
import { type NextPayout, PayoutsService } from '../payouts/payouts.service';
import type { MemberBalanceEntity } from '../bonuses/member-balance.entity';
import type { TenantEntity } from '../tenants/tenant.entity';
import type { MemberEntity } from '../members/member.entity';
import { type TreeMember, MembersService } from '../members/members.service';
import type {
  EmbedLeadsQueryDto,
  EmbedPageQueryDto,
  EmbedQueryDto,
  EmbedTreeQueryDto,
} from './dto/embed-queries.dto';
import type {
  EmbedBalanceResponse,
  EmbedBonusesResponse,
  EmbedCabinetResponse,
  EmbedLeadItemResponse,
  EmbedLeadsResponse,
  EmbedPartnersResponse,
  EmbedTransactionResponse,
  EmbedTreeNodeResponse,
  EmbedTreeResponse,
  EmbedUserResponse,
} from './dto/embed.response';

/** At most this many tree nodes in one answer, filled level by level (docs/embedding.md §3). */
export const TREE_NODE_BUDGET = 1000;
const RECENT_LEADS = 5;
const RECENT_TRANSACTIONS = 10;

/**
 * The five widget reads (docs/embedding.md §3). Every figure comes from kept counters and balances
 * or from one indexed page of rows, and the next payout from the member's unpaid items only;
 * nothing here scans a member's downline or history.
 */
@Injectable()
export class EmbedDataService {
  constructor(
    private readonly members: MembersService,
    private readonly leads: LeadsService,
    private readonly bonusLedger: BonusesService,
    private readonly ledger: LedgerService,
    private readonly payouts: PayoutsService,
  ) {}

  async cabinet(
    tenant: TenantEntity,
    userId: string,
    query: EmbedQueryDto,
  ): Promise<EmbedCabinetResponse> {
    const locale = uiLocale(query.locale, tenant.locale);
    const member = await this.members.getMember(tenant.id, userId);
    const [balances, payable, next, recentLeads, recentBonuses] = await Promise.all([
      this.bonusLedger.balances(tenant.id, member.id),
      this.ledger.balances(tenant.id, member.id),
      this.payouts.nextPayout(tenant, member.id, tenant.currency),
      this.leads.recentForReferrer(tenant.id, member.id, RECENT_LEADS),
      this.bonusLedger.recentForMember(tenant.id, member.id, RECENT_TRANSACTIONS),
    ]);
    const own = balances.find((b) => b.currency === tenant.currency);
    const cleared = own?.clearedKopecks ?? 0;
    const pending = own?.pendingKopecks ?? 0;
    return {
      user: userBlock(member, locale),
      tenant: tenantBlock(tenant),
      kpi: {
        leads_count: member.leadsCount,
        cleared_kopecks: cleared,
        pending_kopecks: pending,
        cleared_formatted: formatMoney(cleared, tenant.currency, locale),
        pending_formatted: formatMoney(pending, tenant.currency, locale),
        clicks_count: member.clicksCount,
      },
      balance: balanceBlock(tenant.currency, balances, payable, next, locale),
      recent_leads: recentLeads.map((l) => leadItem(l, locale)),
      transactions: recentBonuses.map((b) => transaction(b, locale)),
    };
  }

  async bonuses(
    tenant: TenantEntity,
    userId: string,
    query: EmbedPageQueryDto,
  ): Promise<EmbedBonusesResponse> {
    const locale = uiLocale(query.locale, tenant.locale);
    const member = await this.members.getMember(tenant.id, userId);
    const [balances, payable, next, [rows, total]] = await Promise.all([
      this.bonusLedger.balances(tenant.id, member.id),
      this.ledger.balances(tenant.id, member.id),
      this.payouts.nextPayout(tenant, member.id, tenant.currency),
      this.bonusLedger.forMember(tenant.id, member.id, offsetOf(query), query.page_size),
    ]);
    const own = balances.find((b) => b.currency === tenant.currency);
    const money = (kopecks: number, currency: string) => formatMoney(kopecks, currency, locale);
    return {
      user: userBlock(member, locale),
      tenant: tenantBlock(tenant),
      totals: {
        cleared_kopecks: own?.clearedKopecks ?? 0,
        pending_kopecks: own?.pendingKopecks ?? 0,
        cleared_formatted: money(own?.clearedKopecks ?? 0, tenant.currency),
        pending_formatted: money(own?.pendingKopecks ?? 0, tenant.currency),
        currency: tenant.currency,
      },
      balance: balanceBlock(tenant.currency, balances, payable, next, locale),
      accounts: accounts(balances, payable).map((b) => ({
        currency: b.currency,
        cleared_kopecks: b.clearedKopecks,
        pending_kopecks: b.pendingKopecks,
        cleared_formatted: money(b.clearedKopecks, b.currency),
        pending_formatted: money(b.pendingKopecks, b.currency),
        // docs/payouts.md: the ledger's balances (a clawback may make available negative).
        available_kopecks: b.availableKopecks,
        in_payout_kopecks: b.inPayoutKopecks,
        paid_kopecks: b.paidKopecks,
        available_formatted: money(b.availableKopecks, b.currency),
        in_payout_formatted: money(b.inPayoutKopecks, b.currency),
        paid_formatted: money(b.paidKopecks, b.currency),
      })),
      transactions: rows.map((b) => transaction(b, locale)),
      pagination: pagination(query, total),
    };
  }

  async leadsOf(
    tenant: TenantEntity,
    userId: string,
    query: EmbedLeadsQueryDto,
  ): Promise<EmbedLeadsResponse> {
    const locale = uiLocale(query.locale, tenant.locale);
    const member = await this.members.getMember(tenant.id, userId);
    const status = query.status === 'all' ? undefined : query.status;
    const [rows, total] = await this.leads.forReferrer(
      tenant.id,
      member.id,
      status,
      offsetOf(query),
      query.page_size,
      // All statuses: the kept counter (trg_leads_count) is the total, no count over the history.
      status ? undefined : member.leadsCount,
    );
    return {
      user: userBlock(member, locale),
      tenant: tenantBlock(tenant),
      leads: rows.map((l) => leadItem(l, locale)),
      filters: { status: query.status },
      pagination: pagination(query, total),
    };
  }

  async tree(
    tenant: TenantEntity,
    userId: string,
    query: EmbedTreeQueryDto,
  ): Promise<EmbedTreeResponse> {
    const locale = uiLocale(query.locale, tenant.locale);
    const member = await this.members.getMember(tenant.id, userId);
    const { levels, truncated } = await this.members.subtree(
      member,
      query.max_depth,
      TREE_NODE_BUDGET,
    );
    const node = (m: TreeMember): EmbedTreeNodeResponse => ({
      user_id: m.id,
      display_name: displayName(m, locale),
      depth: m.depth - member.depth,
      parent_user_id: m.id === member.id ? null : m.referrerMemberId,
    });
    const nodes = levels.map((level) => level.map(node));
    return {
      user: userBlock(member, locale),
      tenant: tenantBlock(tenant),
      root: nodes[0][0],
      levels: nodes,
      total_downline: member.downlineCount,
      hit_depth_cap: member.deepestDepth - member.depth > query.max_depth,
      max_depth: query.max_depth,
      ...(truncated ? { truncated: true } : {}),
    };
  }

  async partners(
    tenant: TenantEntity,
    userId: string,
    query: EmbedPageQueryDto,
  ): Promise<EmbedPartnersResponse> {
    const locale = uiLocale(query.locale, tenant.locale);
    const member = await this.members.getMember(tenant.id, userId);
    const [rows, total] = await this.members.directReferrals(
      tenant.id,
      member.id,
      offsetOf(query),
      query.page_size,
    );
    return {
      user: userBlock(member, locale),
      tenant: tenantBlock(tenant),
      partners: rows.map((m) => ({
        user_id: m.id,
        display_name: displayName(m, locale),
        partnership_role: m.role,
        joined_at: m.createdAt.toISOString(),
        is_active: m.isActive,
      })),
      pagination: pagination(query, total),
    };
  }
}

/** One account per currency of either the bonus sums or the ledger, by currency. */
function accounts(
  sums: { currency: string; clearedKopecks: number; pendingKopecks: number }[],
  ledger: Balance[],
) {
  const currencies = [...new Set([...sums, ...ledger].map((b) => b.currency))].sort();
  return currencies.map((currency) => {
    const s = sums.find((b) => b.currency === currency);
    const l = ledger.find((b) => b.currency === currency);
    return {
      currency,
      clearedKopecks: s?.clearedKopecks ?? 0,
      pendingKopecks: s?.pendingKopecks ?? 0,
      availableKopecks: l?.availableKopecks ?? 0,
      inPayoutKopecks: l?.inPayoutKopecks ?? 0,
      paidKopecks: l?.paidKopecks ?? 0,
    };
  });
}

/**
 * The partner's money in `currency`, each sum once: the ledger's available, in payout and paid
 * (docs/payouts.md §1), the pending bonus sum, and the next payout.
 */
function balanceBlock(
  currency: string,
  sums: Pick<MemberBalanceEntity, 'currency' | 'pendingKopecks'>[],
  ledger: Balance[],
  next: NextPayout,
  locale: UiLocale,
): EmbedBalanceResponse {
  const l = ledger.find((b) => b.currency === currency);
  const money = (kopecks: number) => formatMoney(kopecks, currency, locale);
  const available = l?.availableKopecks ?? 0;
  const inPayout = l?.inPayoutKopecks ?? 0;
  const paid = l?.paidKopecks ?? 0;
  const pending = sums.find((b) => b.currency === currency)?.pendingKopecks ?? 0;
  return {
    currency,
    available_kopecks: available,
    in_payout_kopecks: inPayout,
    paid_kopecks: paid,
    pending_kopecks: pending,
    available_formatted: money(available),
    in_payout_formatted: money(inPayout),
    paid_formatted: money(paid),
    pending_formatted: money(pending),
    next_payout: {
      schedule: next.schedule,
      date: next.date && next.date.toISOString().slice(0, 10),
      date_formatted: next.date && formatDay(next.date, locale),
      minimum_kopecks: next.minimumKopecks,
      minimum_formatted: money(next.minimumKopecks),
      payable_kopecks: next.payableKopecks,
      payable_formatted: money(next.payableKopecks),
      remaining_kopecks: next.remainingKopecks,
      remaining_formatted: money(next.remainingKopecks),
    },
  };
}

function displayName(member: Pick<MemberEntity, 'fullName' | 'role'>, locale: UiLocale): string {
  return member.fullName ?? label('role', member.role, locale);
}

export function userBlock(member: MemberEntity, locale: UiLocale): EmbedUserResponse {
  return {
    id_surrogate: member.id,
    display_name: displayName(member, locale),
    badge: { role_label: label('role', member.role, locale) },
    claim_required: member.claimRequired,
  };
}

export function tenantBlock(tenant: TenantEntity) {
  return { slug: tenant.slug, display_name: tenant.displayName };
}

function leadItem(lead: LeadEntity, locale: UiLocale): EmbedLeadItemResponse {
  return {
    id: lead.id,
    status: lead.status,
    status_human: label('lead', lead.status, locale),
    contact_name: lead.contactName,
    relative_time: relativeTime(lead.createdAt, locale),
    created_at: lead.createdAt.toISOString(),
  };
}

function transaction(bonus: BonusEntity, locale: UiLocale): EmbedTransactionResponse {
  return {
    bonus_id: bonus.id,
    status: bonus.status,
    status_human: label('bonus', bonus.status, locale),
    amount_kopecks: bonus.amountKopecks,
    amount_formatted: formatMoney(bonus.amountKopecks, bonus.currency, locale),
    currency: bonus.currency,
    source_type: bonus.sourceType,
    source_id: bonus.sourceId,
    tier: bonus.tier,
    rule: ruleResponse(bonus.rule),
    explanation: bonus.explanation ?? null,
    created_at: bonus.createdAt.toISOString(),
    relative_time: relativeTime(bonus.createdAt, locale),
  };
}
