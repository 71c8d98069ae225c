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
import { BacktestRepository, type LeadLink, type MemberLink } from './backtest.repository';
import type { BacktestDto, BacktestResponse, BacktestTarget } from './dto/backtest.dto';
import { dayNumber, SalesLedger } from './sales-ledger';

/** The longest period a backtest replays, in days (SPEC 15). */
export const MAX_BACKTEST_DAYS = 366;
/** Conversions read per statement. */
const PAGE = 20_000;
const TOP_PARTNERS = 20;

/** Which conversions a draft governs: as "Which program pays" picks, with the groups as they are now. */
type GovernedBy = { type: 'default' } | { type: 'group' | 'offer'; id: string };

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
      const replay = new Replay(this.repo, tenant, draft, by, from, to);
      await replay.run();
      const people = [...replay.people.values()];
      return {
        target: dto.target,
        from: dto.from,
        to: dto.to,
        currency: tenant.currency,
        conversions: replay.replayed,
        skipped: replay.skipped,
        actual: { commission_kopecks: replay.actual.total, by_tier: replay.actual.byTier },
        draft: { commission_kopecks: replay.draft.total, by_tier: replay.draft.byTier },
        delta_kopecks: replay.draft.total - replay.actual.total,
        partners: people
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

/** One run of the replay: the leads, members, lead histories and sales it has read so far. */
class Replay {
  replayed = 0;
  skipped = 0;
  readonly actual = new Tally();
  readonly draft = new Tally();
  readonly people = new Map<string, { userId: string; actual: number; draft: number }>();
  private readonly leads = new Map<string, LeadLink>();
  private readonly links = new Map<string, MemberLink>();
  private readonly sales = new SalesLedger();
  private times = new Map<string, Date[]>();
  private owners: { offers: Set<string>; groups: Set<string> } = {
    offers: new Set(),
    groups: new Set(),
  };
  private readonly depth: number;
  /** Generations read above each page's referrers: more when compression may walk past the tiers. */
  private readonly prefetch: number;
  private readonly windows: number;
  private readonly qualifies: boolean;

  constructor(
    private readonly repo: BacktestRepository,
    private readonly tenant: TenantEntity,
    private readonly program: Program,
    private readonly by: GovernedBy,
    private readonly from: Date,
    private readonly to: Date,
  ) {
    this.depth = maxTierCount(program);
    this.prefetch = program.compression ? this.depth + 8 : this.depth;
    const phases = program.phases ?? [{ tiers: program.tiers }];
    const windows = phases.flatMap((p) => p.tiers.flatMap((t) => t.qualify?.window_days ?? []));
    this.windows = Math.min(Math.max(0, ...windows), MAX_WINDOW_DAYS);
    this.qualifies = program.compression === true || windows.length > 0;
  }

  async run(): Promise<void> {
    const tenantId = this.tenant.id;
    this.owners = await this.repo.ownPrograms(tenantId);
    // Personal sales from before the period, in day order, before the replay adds its own.
    if (this.qualifies) {
      const before = await this.repo.salesBefore(
        tenantId,
        this.tenant.currency,
        this.from,
        this.windows,
      );
      for (const row of before) this.sales.add(row.memberId, dayNumber(row.day), row.amountKopecks);
    }
    if (this.program.phases) {
      this.times = await this.repo.earlierTimes(tenantId, this.from, this.to);
    }
    let after: { position: string; id: string } | null = null;
    for (;;) {
      const page = await this.repo.page(tenantId, this.from, this.to, after, PAGE);
      if (!page.length) break;
      const newLeads = [...new Set(page.map((c) => c.leadId))].filter((id) => !this.leads.has(id));
      for (const lead of await this.repo.leads(tenantId, newLeads)) this.leads.set(lead.id, lead);
      const referrers = [
        ...new Set(page.flatMap((c) => this.leads.get(c.leadId)?.referrerMemberId ?? [])),
      ];
      await this.load(referrers, this.prefetch);
      for (const c of page) {
        const lead = this.leads.get(c.leadId);
        const referrer = lead?.referrerMemberId ?? null;
        const counted = !c.reversed && c.currency === this.tenant.currency;
        const group = referrer ? (this.links.get(referrer)?.groupId ?? null) : null;
        const governed = !!lead && this.governs(lead.offerId, group);
        if (governed && !c.reversed && !counted) this.skipped++;
        if (governed && counted) {
          this.replayed++;
          if (referrer) await this.pay(referrer, c.leadId, c.amountKopecks, c.createdAt);
        }
        if (this.program.phases) this.history(c.leadId).push(c.createdAt);
        if (counted && referrer) this.sales.add(referrer, dayNumber(c.createdAt), c.amountKopecks);
      }
      const last = page[page.length - 1];
      after = { position: last.position, id: last.id };
      if (page.length < PAGE) break;
    }
    const paid = await this.repo.paid(tenantId, this.from, this.to, this.tenant.currency);
    for (const bonus of paid) {
      if (!this.governs(bonus.offerId, bonus.referrerGroupId)) continue;
      this.actual.add(bonus.tier, bonus.amountKopecks);
      this.person(bonus.memberId, bonus.serviceUserId).actual += bonus.amountKopecks;
    }
  }

  /** Whether the draft would pay this lead's conversions (docs/partners.md, "Which program pays"). */
  private governs(offerId: string | null, group: string | null): boolean {
    if (this.by.type === 'offer') return offerId === this.by.id;
    if (offerId && this.owners.offers.has(offerId)) return false;
    if (this.by.type === 'group') return group === this.by.id;
    return !group || !this.owners.groups.has(group);
  }

  private person(memberId: string, userId: string) {
    let person = this.people.get(memberId);
    if (!person) {
      person = { userId, actual: 0, draft: 0 };
      this.people.set(memberId, person);
    }
    return person;
  }

  /** What the draft pays for one conversion, as ConversionsService.shares would. */
  private async pay(referrer: string, leadId: string, amount: number, at: Date) {
    let tiers = this.program.tiers;
    if (this.program.phases) {
      const phase = phaseOf(this.program.phases, this.history(leadId), at);
      if (!phase) return;
      tiers = phase.phase.tiers;
    }
    const day = dayNumber(at);
    const rules = {
      compression: this.program.compression === true,
      personalSales: (id: string, windowDays: number) => this.sales.sum(id, windowDays, day),
    };
    let length = this.depth;
    let walk: ReturnType<typeof cascadeWalk>;
    for (;;) {
      const { chain, cut } = this.chain(referrer, length);
      // Members above not read yet: read them (and a stretch above), then walk again.
      if (cut) {
        await this.load([chain.at(-1)!.id], length - chain.length + 1);
        continue;
      }
      walk = cascadeWalk(amount, tiers!, chain, rules);
      // A compressing walk that ran out of a chain that goes on: look twice as far up.
      if (!walk.ranOut || chain.length < length || length > MAX_COMPRESSION_WALK) break;
      length = Math.min(length * 2, MAX_COMPRESSION_WALK + 1);
    }
    for (const share of walk.shares) {
      this.draft.add(share.tier, share.amountKopecks);
      this.person(share.memberId, share.serviceUserId).draft += share.amountKopecks;
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

  /**
   * The member and up to `length − 1` members above, from what has been read; `cut` when it stops
   * short at a member whose referrer is not read yet.
   */
  private chain(memberId: string, length: number): { chain: ChainMember[]; cut: boolean } {
    const chain: ChainMember[] = [];
    let link = this.links.get(memberId);
    while (link && chain.length < length) {
      chain.push({ id: link.id, serviceUserId: link.serviceUserId, isActive: link.isActive });
      if (!link.parentId) return { chain, cut: false };
      const parent = this.links.get(link.parentId);
      if (!parent && chain.length < length) return { chain, cut: true };
      link = parent;
    }
    return { chain, cut: false };
  }

  /**
   * Reads the members and `levels − 1` generations above them that are not read yet, a generation
   * per statement.
   */
  private async load(ids: readonly string[], levels: number): Promise<void> {
    const walked = new Set<string>();
    let generation = [...ids];
    for (let level = 0; level < levels && generation.length; level++) {
      const missing = generation.filter((id) => !this.links.has(id));
      for (const link of await this.repo.members(this.tenant.id, missing)) {
        this.links.set(link.id, link);
      }
      for (const id of generation) walked.add(id);
      const parents = generation.flatMap((id) => this.links.get(id)?.parentId ?? []);
      generation = [...new Set(parents)].filter((id) => !walked.has(id));
    }
  }
}
