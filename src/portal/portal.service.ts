import { Injectable } from '@nestjs/common';
import type { BonusEntity } from '../bonuses/bonus.entity';
import { BonusesService } from '../bonuses/bonuses.service';
import { BountiesService, type MemberBounty } from '../bounties/bounties.service';
import { ConversionsService } from '../conversions/conversions.service';
import type { DeeplinkEntity } from '../deeplinks/deeplink.entity';
import { DeeplinksService } from '../deeplinks/deeplinks.service';
import type {
  CreateReferralLinkDto,
  ReferralLinkResponse,
} from '../deeplinks/dto/referral-link.dto';
import { GroupsService } from '../groups/groups.service';
import type { LeadEntity } from '../leads/lead.entity';
import { LeadsService } from '../leads/leads.service';
import type { MemberEntity } from '../members/member.entity';
import { MembersService, type TreeMember } from '../members/members.service';
import {
  type NotificationPreferences,
  NotificationsService,
} from '../notifications/notifications.service';
import { type Balance, LedgerService } from '../payouts/ledger/ledger.service';
import type { PayoutEntity } from '../payouts/payout.entity';
import { PayoutsService } from '../payouts/payouts.service';
import {
  type MaskedPayoutDetails,
  PayoutDetailsService,
} from '../payouts/payout-details/payout-details.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { type ActivityDay, PortalActivityRepository } from './portal-activity.repository';

const DAY_MS = 86_400_000;
/** Home's period: the last 30 UTC days, today included. */
export const ACTIVITY_DAYS = 30;
/** At most this many members of the downline on the Referrals page, filled level by level. */
export const TREE_BUDGET = 200;
export const TREE_DEPTH = 10;
export const PAGE_SIZE = 20;

export interface Page<T> {
  rows: T[];
  total: number;
  page: number;
  totalPages: number;
}

export interface HomeData {
  /** The ledger's figures in the tenant's currency (zeros when none). */
  balance: Balance;
  /** Any other currencies the member has money in. */
  others: Balance[];
  days: ActivityDay[];
  groupName: string | null;
  /** The bounties the member takes part in, or reached (docs/money.md §13). */
  bounties: MemberBounty[];
}

export interface EarningRow {
  bonus: BonusEntity;
  /** The conversion's reward note (SPEC 15), when it has one. */
  note?: string;
}

/**
 * What the partner portal shows of its signed-in member (docs/partners.md, "The partner portal"):
 * every figure read through the owning feature's service, the same the Admin API and the widgets
 * give (balances from the payouts ledger, links from deeplinks, leads, bonuses, payouts), and the
 * portal's own daily activity rollup.
 */
@Injectable()
export class PortalService {
  constructor(
    private readonly activity: PortalActivityRepository,
    private readonly members: MembersService,
    private readonly groups: GroupsService,
    private readonly ledger: LedgerService,
    private readonly leads: LeadsService,
    private readonly bonuses: BonusesService,
    private readonly conversions: ConversionsService,
    private readonly payouts: PayoutsService,
    private readonly deeplinks: DeeplinksService,
    private readonly details: PayoutDetailsService,
    private readonly notifications: NotificationsService,
    private readonly bounties: BountiesService,
  ) {}

  async home(tenant: TenantEntity, member: MemberEntity, now = Date.now()): Promise<HomeData> {
    const to = new Date(now).toISOString().slice(0, 10);
    const from = new Date(now - (ACTIVITY_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
    const [balances, rows, group, bounties] = await Promise.all([
      this.ledger.balances(tenant.id, member.id),
      this.activity.days(tenant.id, member.id, from, to),
      member.groupId
        ? this.groups.get(tenant.id, member.groupId).catch(() => null)
        : Promise.resolve(null),
      this.bounties.forMember(tenant.id, member.id),
    ]);
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const days: ActivityDay[] = [];
    for (let i = ACTIVITY_DAYS - 1; i >= 0; i--) {
      const day = new Date(now - i * DAY_MS).toISOString().slice(0, 10);
      days.push(byDay.get(day) ?? { day, clicks: 0, leads: 0, conversions: 0 });
    }
    const zero: Balance = {
      currency: tenant.currency,
      availableKopecks: 0,
      inPayoutKopecks: 0,
      paidKopecks: 0,
    };
    return {
      balance: balances.find((b) => b.currency === tenant.currency) ?? zero,
      others: balances.filter((b) => b.currency !== tenant.currency),
      days,
      groupName: group?.name ?? null,
      bounties,
    };
  }

  async links(
    tenant: TenantEntity,
    member: MemberEntity,
    page: number,
  ): Promise<Page<DeeplinkEntity & { shortUrl: string }>> {
    const [rows, total] = await this.deeplinks.forMember(
      tenant.id,
      member.id,
      (page - 1) * PAGE_SIZE,
      PAGE_SIZE,
    );
    return pageOf(rows, total, page);
  }

  /** A website link to `target` through the referral-link service and its target rules. */
  createLink(
    tenant: TenantEntity,
    member: MemberEntity,
    target: string,
    note?: string,
  ): Promise<ReferralLinkResponse> {
    const dto: CreateReferralLinkDto = { target_type: 'website', target_id: target };
    if (note) dto.recommendation_text = note;
    return this.deeplinks.createOrReuse(tenant, member.id, dto);
  }

  async leadsOf(
    tenant: TenantEntity,
    member: MemberEntity,
    page: number,
  ): Promise<Page<LeadEntity>> {
    const [rows, total] = await this.leads.forReferrer(
      tenant.id,
      member.id,
      undefined,
      (page - 1) * PAGE_SIZE,
      PAGE_SIZE,
      member.leadsCount,
    );
    return pageOf(rows, total, page);
  }

  tree(member: MemberEntity): Promise<{ levels: TreeMember[][]; truncated: boolean }> {
    return this.members.subtree(member, TREE_DEPTH, TREE_BUDGET);
  }

  async earnings(
    tenant: TenantEntity,
    member: MemberEntity,
    page: number,
  ): Promise<Page<EarningRow>> {
    const [rows, total] = await this.bonuses.forMember(
      tenant.id,
      member.id,
      (page - 1) * PAGE_SIZE,
      PAGE_SIZE,
    );
    const notes = await this.conversions.rewardNotes(
      tenant.id,
      rows.filter((b) => b.sourceType === 'conversion').map((b) => b.sourceId),
    );
    return pageOf(
      rows.map((bonus) => ({
        bonus,
        note: bonus.sourceType === 'conversion' ? notes.get(bonus.sourceId) : undefined,
      })),
      total,
      page,
    );
  }

  async payoutsOf(
    tenant: TenantEntity,
    member: MemberEntity,
    page: number,
  ): Promise<{ payouts: Page<PayoutEntity>; details: MaskedPayoutDetails | null }> {
    const [[rows, total], details] = await Promise.all([
      this.payouts.forMember(tenant.id, member.id, (page - 1) * PAGE_SIZE, PAGE_SIZE),
      this.details.getMasked(tenant.id, member.id),
    ]);
    return { payouts: pageOf(rows, total, page), details };
  }

  saveDetails(tenant: TenantEntity, member: MemberEntity, body: Record<string, unknown>) {
    return this.details.saveForm(tenant.id, member.id, body);
  }

  preferences(tenant: TenantEntity, member: MemberEntity): Promise<NotificationPreferences> {
    return this.notifications.preferences(tenant.id, member.id);
  }

  savePreferences(
    tenant: TenantEntity,
    member: MemberEntity,
    given: Record<string, unknown>,
  ): Promise<NotificationPreferences> {
    return this.notifications.updateOwn(tenant.id, member.id, given);
  }
}

function pageOf<T>(rows: T[], total: number, page: number): Page<T> {
  return { rows, total, page, totalPages: Math.ceil(total / PAGE_SIZE) };
}
