import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../common/errors/domain-error';
import { cascadeWalk, type ChainMember, MAX_COMPRESSION_WALK } from '../conversions/cascade';
import { phaseOf } from '../conversions/phases';
import { TransactionHost } from '../database/transaction-host';
import { GroupsService } from '../groups/groups.service';
import { OffersService } from '../offers/offers.service';
import {
  MAX_WINDOW_DAYS,
  maxTierCount,
  type Program,
  withProgramDefaults,
} from '../tenants/program';
import type { TenantEntity } from '../tenants/tenant.entity';
import { BacktestRepository, type GovernedBy, type MemberLink } from './backtest.repository';
import type { BacktestDto, BacktestResponse, BacktestTarget } from './dto/backtest.dto';
import { dayNumber, SalesLedger } from './sales-ledger';

/** The longest period a backtest replays, in days (SPEC 15). */
export const MAX_BACKTEST_DAYS = 366;
/** Conversions read per statement. */
const PAGE = 20_000;
const TOP_PARTNERS = 20;

/** Per member and tier, what a side (actual or draft) paid. */
class Tally {
  readonly byTier: Record<string, number> = {};
  total = 0;
  add(tier: string, amount: number) {
    this.byTier[tier] = (this.byTier[tier] ?? 0) + amount;
    this.total += amount;
  }
}

/**
 * docs/money.md §2, "Backtest": replays the conversions of a period that a draft program would
 * govern, in registration order, over the tenant's trees and active flags as they are now, with
 * the phases counted from each lead's whole history and personal sales accruing as the replay
 * goes; answers what they paid and what the draft would have, writing nothing. The draft's figure
 * is what registering the same conversions under it would pay (the register path's own phase and
 * cascade functions are used).
 */
@Injectable()
export class BacktestService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repo: BacktestRepository,
    private readonly groups: GroupsService,
    private readonly offers: OffersService,
  ) {}

  async run(tenant: TenantEntity, dto: BacktestDto): Promise<BacktestResponse> {
    const { from, to } = period(dto.from, dto.to);
    const by = await this.governedBy(tenant.id, dto.target);
    const draft = withProgramDefaults(dto.program);
    // One snapshot for every read; the period's statements may be long.
    return this.tx.transaction(async () => {
      await this.tx.allowLongStatements();
      const replay = new Replay(this.repo, tenant, draft, from, to);
      const draftSide = await replay.run(by);
      const actual = await this.repo.actual(tenant.id, from, to, by, tenant.currency);
      const actualSide = new Tally();
      const people = replay.people;
      for (const row of actual) {
        actualSide.add(row.tier, row.amountKopecks);
        const person = people.get(row.memberId) ?? {
          userId: row.serviceUserId,
          actual: 0,
          draft: 0,
        };
        person.actual += row.amountKopecks;
        people.set(row.memberId, person);
      }
      return {
        target: dto.target,
        from: dto.from,
        to: dto.to,
        currency: tenant.currency,
        conversions: replay.replayed,
        skipped: replay.skipped,
        actual: { commission_kopecks: actualSide.total, by_tier: actualSide.byTier },
        draft: { commission_kopecks: draftSide.total, by_tier: draftSide.byTier },
        delta_kopecks: draftSide.total - actualSide.total,
        partners: [...people.values()]
          .filter((p) => p.draft !== p.actual)
          .sort(
            (a, b) =>
              Math.abs(b.draft - b.actual) - Math.abs(a.draft - a.actual) ||
              a.userId.localeCompare(b.userId),
          )
          .slice(0, TOP_PARTNERS)
          .map((p) => ({ user_id: p.userId, actual_kopecks: p.actual, draft_kopecks: p.draft })),
      };
    });
  }

  /** The target as the replay selects by it; an unknown group or offer of this tenant is 404. */
  private async governedBy(tenantId: string, target: BacktestTarget): Promise<GovernedBy> {
    if (target === 'default') return { type: 'default' };
    if (typeof target === 'object' && target !== null && !Array.isArray(target)) {
      const keys = Object.keys(target);
      const value = Object.values(target)[0] as unknown;
      if (keys.length === 1 && typeof value === 'string') {
        if (keys[0] === 'group_id') {
          await this.groups.get(tenantId, value);
          return { type: 'group', id: value };
        }
        if (keys[0] === 'offer_id') {
          await this.offers.get(tenantId, value);
          return { type: 'offer', id: value };
        }
      }
    }
    throw new ValidationFailedError([
      { field: 'target', message: 'must be "default", {"group_id": …} or {"offer_id": …}' },
    ]);
  }
}

/** The period's bounds as instants: [from 00:00Z, the day after `to` 00:00Z). */
function period(fromDay: string, toDay: string): { from: Date; to: Date } {
  const from = new Date(`${fromDay}T00:00:00.000Z`);
  const last = new Date(`${toDay}T00:00:00.000Z`);
  const errors = [];
  if (Number.isNaN(from.getTime()) || from.toISOString().slice(0, 10) !== fromDay) {
    errors.push({ field: 'from', message: 'must be a day YYYY-MM-DD' });
  }
  if (Number.isNaN(last.getTime()) || last.toISOString().slice(0, 10) !== toDay) {
    errors.push({ field: 'to', message: 'must be a day YYYY-MM-DD' });
  }
  if (!errors.length && last < from)
    errors.push({ field: 'to', message: 'must not be before from' });
  if (!errors.length && dayNumber(last) - dayNumber(from) + 1 > MAX_BACKTEST_DAYS) {
    errors.push({ field: 'to', message: `the period may span at most ${MAX_BACKTEST_DAYS} days` });
  }
  if (errors.length) throw new ValidationFailedError(errors);
  return { from, to: new Date(last.getTime() + 86_400_000) };
}

/** One run of the replay: the members, lead histories and sales it has read so far. */
class Replay {
  replayed = 0;
  skipped = 0;
  readonly people = new Map<string, { userId: string; actual: number; draft: number }>();
  private readonly links = new Map<string, MemberLink>();
  private readonly salesLoaded = new Set<string>();
  private readonly sales = new SalesLedger();
  private times = new Map<string, Date[]>();
  private readonly depth: number;
  private readonly windows: number;
  private readonly qualifies: boolean;

  constructor(
    private readonly repo: BacktestRepository,
    private readonly tenant: TenantEntity,
    private readonly draft: Program,
    private readonly from: Date,
    private readonly to: Date,
  ) {
    this.depth = maxTierCount(draft);
    const phases = draft.phases ?? [{ tiers: draft.tiers }];
    const windows = phases.flatMap((p) => p.tiers.flatMap((t) => t.qualify?.window_days ?? []));
    this.windows = Math.min(Math.max(0, ...windows), MAX_WINDOW_DAYS);
    this.qualifies = draft.compression === true || windows.length > 0;
  }

  async run(by: GovernedBy): Promise<Tally> {
    const tally = new Tally();
    if (this.draft.phases)
      this.times = await this.repo.earlierTimes(this.tenant.id, this.from, this.to);
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const page = await this.repo.page(this.tenant.id, this.from, this.to, by, after, PAGE);
      if (!page.length) break;
      const referrers = [...new Set(page.flatMap((c) => c.referrerMemberId ?? []))];
      await this.load(referrers, this.depth);
      for (const c of page) {
        const counted = !c.reversed && c.currency === this.tenant.currency;
        if (c.governed && !c.reversed && !counted) this.skipped++;
        if (c.governed && counted && c.referrerMemberId) {
          await this.pay(c.referrerMemberId, c.leadId, c.amountKopecks, c.createdAt, tally);
        }
        if (c.governed && counted) this.replayed++;
        if (this.draft.phases) this.history(c.leadId).push(c.createdAt);
        if (counted && c.referrerMemberId) {
          this.sales.add(c.referrerMemberId, dayNumber(c.createdAt), c.amountKopecks);
        }
      }
      const last = page[page.length - 1];
      after = { at: last.createdAt, id: last.id };
      if (page.length < PAGE) break;
    }
    return tally;
  }

  /** What the draft pays for one conversion, as ConversionsService.shares would. */
  private async pay(referrer: string, leadId: string, amount: number, at: Date, tally: Tally) {
    let tiers = this.draft.tiers;
    if (this.draft.phases) {
      const phase = phaseOf(this.draft.phases, this.history(leadId), at);
      if (!phase) return;
      tiers = phase.phase.tiers;
    }
    const day = dayNumber(at);
    const rules = {
      compression: this.draft.compression === true,
      personalSales: (id: string, windowDays: number) => this.sales.sum(id, windowDays, day),
    };
    let chain = this.chain(referrer, this.depth);
    let complete = chain.length < this.depth;
    let walk = cascadeWalk(amount, tiers!, chain, rules);
    while (walk.ranOut && !complete && chain.length < MAX_COMPRESSION_WALK + 1) {
      const length = Math.min(chain.length * 2, MAX_COMPRESSION_WALK + 1);
      await this.load([chain.at(-1)!.id], length - chain.length + 1);
      const longer = this.chain(referrer, length);
      complete = longer.length < length;
      chain = longer;
      walk = cascadeWalk(amount, tiers!, chain, rules);
    }
    for (const share of walk.shares) {
      tally.add(share.tier, share.amountKopecks);
      const person = this.people.get(share.memberId) ?? {
        userId: share.serviceUserId,
        actual: 0,
        draft: 0,
      };
      person.draft += share.amountKopecks;
      this.people.set(share.memberId, person);
    }
  }

  private history(leadId: string): Date[] {
    let list = this.times.get(leadId);
    if (!list) {
      list = [];
      this.times.set(leadId, list);
    }
    return list;
  }

  /** The member and up to `length − 1` members above, from what has been loaded. */
  private chain(memberId: string, length: number): ChainMember[] {
    const chain: ChainMember[] = [];
    let link = this.links.get(memberId);
    while (link && chain.length < length) {
      chain.push({ id: link.id, serviceUserId: link.serviceUserId, isActive: link.isActive });
      link = link.parentId ? this.links.get(link.parentId) : undefined;
    }
    return chain;
  }

  /**
   * Reads the members and `levels − 1` generations above them that are not read yet, a generation
   * per statement, and (when the draft qualifies) their personal sales from before the period.
   */
  private async load(ids: readonly string[], levels: number): Promise<void> {
    let frontier = ids.filter((id) => !this.links.has(id));
    const walked = new Set<string>();
    let generation = [...ids];
    for (let level = 0; level < levels && generation.length; level++) {
      const fetched = await this.repo.members(this.tenant.id, frontier);
      for (const link of fetched) this.links.set(link.id, link);
      for (const id of generation) walked.add(id);
      const parents = generation.flatMap((id) => this.links.get(id)?.parentId ?? []);
      generation = [...new Set(parents)].filter((id) => !walked.has(id));
      frontier = generation.filter((id) => !this.links.has(id));
    }
    if (!this.qualifies || this.windows === 0) return;
    const unseen = [...walked].filter((id) => this.links.has(id) && !this.salesLoaded.has(id));
    for (const id of unseen) this.salesLoaded.add(id);
    const rows = await this.repo.salesBefore(
      this.tenant.id,
      this.tenant.currency,
      unseen,
      this.from,
      this.windows,
    );
    for (const row of rows) this.sales.add(row.memberId, dayNumber(row.day), row.amountKopecks);
  }
}
