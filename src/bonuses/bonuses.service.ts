import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../common/access/actor';
import { parseInstant } from '../common/http/instant';
import { offsetOf, pagination } from '../common/http/pagination.dto';
import { newId } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import type { EventPayloads } from '../outbox/event-types';
import { EventsService } from '../outbox/events.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MemberNotFoundError } from '../members/member.errors';
import { MembersService } from '../members/members.service';
import type { BonusReview } from '../fraud/risk-signal';
import type { BonusEntity, BonusRule, BonusSourceType } from './bonus.entity';
import { BONUS_LEDGER, type BonusLedger } from './bonus-ledger';
import type { MemberBalanceEntity } from './member-balance.entity';
import { BonusNotFoundError, BonusTransitionError } from './bonus.errors';
import { BonusesRepository } from './bonuses.repository';
import { SWEEP_BATCH_SIZE } from './bonuses.queue';
import type { CreateManualBonusDto, ListBonusesQueryDto } from './dto/bonus-requests.dto';
import type { BonusListResponse, BonusResponse } from './dto/bonus.response';

type BonusEventType = 'bonus.pending' | 'bonus.flagged' | 'bonus.approved' | 'bonus.rejected';

const HOUR_MS = 60 * 60 * 1000;

export interface NewBonus {
  memberId: string;
  serviceUserId: string;
  amountKopecks: number;
  currency: string;
  sourceType: BonusSourceType;
  sourceId: string;
  tier: string | null;
  gracePeriodHours: number;
  /** A manual bonus's reason; rejections write theirs here too. */
  reason?: string;
  /** docs/fraud.md: flagged when a risk signal fired on the bonus's lead or conversion. */
  review?: BonusReview | null;
  /** Conversion bonuses: what paid them (docs/money.md §2, "Versions"). */
  rule?: BonusRule | null;
  explanation?: string | null;
}

/**
 * The bonus life of docs/money.md §6: pending → approved (staff or the grace sweep), pending →
 * rejected (staff, or the lead rejected), pending|approved → reversed (conversion reversed). Every
 * change is a conditional UPDATE in the caller's transaction with its event written beside it.
 */
@Injectable()
export class BonusesService {
  private readonly logger = new Logger(BonusesService.name);

  constructor(
    private readonly tx: TransactionHost,
    private readonly bonuses: BonusesRepository,
    private readonly events: EventsService,
    private readonly members: MembersService,
    private readonly audit: AuditService,
    @Inject(BONUS_LEDGER) private readonly ledger: BonusLedger,
  ) {}

  /** Accrues pending bonuses and emits `bonus.pending` for each; joins the caller's transaction. */
  async accrue(tenantId: string, items: NewBonus[]): Promise<BonusEntity[]> {
    const now = new Date();
    const rows: BonusEntity[] = items.map((item) => ({
      tenantId,
      id: newId('bonus'),
      memberId: item.memberId,
      serviceUserId: item.serviceUserId,
      amountKopecks: item.amountKopecks,
      currency: item.currency,
      sourceType: item.sourceType,
      sourceId: item.sourceId,
      tier: item.tier,
      status: 'pending',
      reason: item.reason ?? null,
      dueAt: new Date(now.getTime() + item.gracePeriodHours * HOUR_MS),
      approvedAt: null,
      rejectedAt: null,
      reversedAt: null,
      createdAt: now,
      review: item.review ?? null,
      rule: item.rule ?? null,
      explanation: item.explanation ?? null,
    }));
    await this.bonuses.insert(rows);
    await this.emitEach(tenantId, 'bonus.pending', rows, (b) => ({
      currency: b.currency,
      source_type: b.sourceType,
      source_id: b.sourceId,
    }));
    await this.emitFlagged(tenantId, rows);
    return rows;
  }

  approve(tenantId: string, bonusId: string, actor: Actor): Promise<BonusResponse> {
    return this.tx.transaction(async () => {
      const bonus = await this.bonuses.approve(tenantId, bonusId);
      if (!bonus) throw await this.transitionError(tenantId, bonusId, 'approved');
      await this.emitApproved(tenantId, [bonus]);
      await this.ledger.bonusesApproved(tenantId, [bonus]);
      await this.audit.record(tenantId, actor, 'bonus.approved', { type: 'bonus', id: bonus.id });
      return toBonusResponse(bonus);
    });
  }

  reject(tenantId: string, bonusId: string, reason: string, actor: Actor): Promise<BonusResponse> {
    return this.tx.transaction(async () => {
      const bonus = await this.bonuses.reject(tenantId, bonusId, reason);
      if (!bonus) throw await this.transitionError(tenantId, bonusId, 'rejected');
      await this.emitRejected(tenantId, [bonus]);
      await this.audit.record(
        tenantId,
        actor,
        'bonus.rejected',
        { type: 'bonus', id: bonus.id },
        {
          reason,
        },
      );
      return toBonusResponse(bonus);
    });
  }

  /** A banned partner's pending bonuses are rejected (docs/fraud.md); caller's transaction. */
  async rejectPendingForMember(tenantId: string, memberId: string, reason: string) {
    const rejected = await this.bonuses.rejectPendingForMember(tenantId, memberId, reason);
    await this.emitRejected(tenantId, rejected);
    return rejected;
  }

  /** A staff bonus or adjustment (docs/money.md §7): pending, `source_type` manual, by the actor. */
  createManual(
    tenant: TenantEntity,
    dto: CreateManualBonusDto,
    actor: Actor,
  ): Promise<BonusResponse> {
    return this.tx.transaction(async () => {
      const member = await this.members.findMember(tenant.id, dto.user_id);
      if (!member) throw new MemberNotFoundError(dto.user_id);
      const [bonus] = await this.accrue(tenant.id, [
        {
          memberId: member.id,
          serviceUserId: member.serviceUserId,
          amountKopecks: dto.amount_kopecks,
          currency: dto.currency,
          sourceType: 'manual',
          sourceId: 'id' in actor ? actor.id : actor.name,
          tier: null,
          gracePeriodHours: tenant.program.grace_period_hours,
          reason: dto.reason,
        },
      ]);
      await this.audit.record(
        tenant.id,
        actor,
        'bonus.created',
        { type: 'bonus', id: bonus.id },
        {
          user_id: member.serviceUserId,
          amount_kopecks: dto.amount_kopecks,
          currency: dto.currency,
          reason: dto.reason,
        },
      );
      return toBonusResponse(bonus);
    });
  }

  /** A rejected lead takes its pending lead bonuses with it (docs/money.md §3); caller's transaction. */
  async rejectPendingForLead(tenantId: string, leadId: string): Promise<BonusEntity[]> {
    const rejected = await this.bonuses.rejectPendingBySource(
      tenantId,
      'lead',
      leadId,
      'lead_rejected',
    );
    await this.emitRejected(tenantId, rejected);
    return rejected;
  }

  /**
   * Writes off a conversion's pending, approved and paid bonuses; caller's transaction. A paid one,
   * or one a pending payout holds, is clawed back (docs/payouts.md): `clawbackId` names it.
   */
  async reverseForConversion(
    tenantId: string,
    conversionId: string,
  ): Promise<(BonusEntity & { clawbackId?: string })[]> {
    const reversed = await this.bonuses.reverseBySource(tenantId, 'conversion', conversionId);
    const clawbacks = await this.ledger.bonusesReversed(
      tenantId,
      reversed.map((b) => ({ ...b, wasApproved: b.approvedAt !== null })),
    );
    return reversed.map((b) => Object.assign(b, { clawbackId: clawbacks.get(b.id) }));
  }

  /** Locks a payout's bonuses in id order, before the payout's own row (docs/payouts.md). */
  lockForPayout(tenantId: string, bonusIds: string[]): Promise<void> {
    return this.bonuses.lockInOrder(tenantId, bonusIds);
  }

  /** approved → paid for the bonuses of a payout marked paid; caller's transaction. */
  markPaid(tenantId: string, bonusIds: string[], paidAt: Date): Promise<BonusEntity[]> {
    return this.bonuses.markPaid(tenantId, bonusIds, paidAt);
  }

  bonusesOfSource(
    tenantId: string,
    sourceType: BonusSourceType,
    sourceId: string,
  ): Promise<BonusEntity[]> {
    return this.bonuses.listBySource(tenantId, sourceType, sourceId);
  }

  /**
   * The grace-period sweep: approves due bonuses tenant by tenant, in batches, one transaction per
   * batch, until none is left. Safe to run in several workers at once.
   */
  async approveDue(batchSize = SWEEP_BATCH_SIZE): Promise<number> {
    let total = 0;
    for (const tenantId of await this.bonuses.tenantsWithDue()) {
      for (;;) {
        // A deadlock with another worker's sweep is retried by TransactionHost.
        const approved = await this.tx.transaction(async () => {
          const batch = await this.bonuses.approveDue(tenantId, batchSize);
          if (batch.length) {
            await this.emitApproved(tenantId, batch);
            await this.ledger.bonusesApproved(tenantId, batch);
          }
          return batch.length;
        });
        total += approved;
        if (approved < batchSize) break;
      }
    }
    if (total) this.logger.log(`Grace sweep approved ${total} bonuses`);
    return total;
  }

  /** A partner's bonuses for the widgets, newest first. */
  forMember(tenantId: string, memberId: string, offset: number, limit: number) {
    return this.bonuses.forMember(tenantId, memberId, offset, limit);
  }

  recentForMember(tenantId: string, memberId: string, limit: number): Promise<BonusEntity[]> {
    return this.bonuses.recentForMember(tenantId, memberId, limit);
  }

  /** Pending and cleared sums per currency, read from the kept balances (no history scan). */
  balances(tenantId: string, memberId: string): Promise<MemberBalanceEntity[]> {
    return this.bonuses.balances(tenantId, memberId);
  }

  totalsByStatus(tenantId: string) {
    return this.bonuses.totalsByStatus(tenantId);
  }

  async list(tenantId: string, query: ListBonusesQueryDto): Promise<BonusListResponse> {
    // A member named by its surrogate filters by its service user id; an unknown one matches none.
    const serviceUserId = query.user_id?.startsWith('mbr_')
      ? ((await this.members.findMember(tenantId, query.user_id))?.serviceUserId ?? query.user_id)
      : query.user_id;
    const [rows, total] = await this.bonuses.list(
      tenantId,
      {
        status: query.status,
        review: query.review,
        serviceUserId,
        from: parseInstant(query.created_from),
        to: parseInstant(query.created_to),
      },
      offsetOf(query),
      query.page_size,
    );
    return { items: rows.map(toBonusResponse), pagination: pagination(query, total) };
  }

  /** `bonus.flagged` for each flagged bonus, after its `bonus.pending` (docs/fraud.md). */
  private async emitFlagged(tenantId: string, bonuses: BonusEntity[]): Promise<void> {
    const flagged = bonuses.filter((b) => b.review?.status === 'flagged');
    if (!flagged.length) return;
    await this.emitEach(tenantId, 'bonus.flagged', flagged, (b) => ({
      signals: b.review!.signals,
    }));
  }

  private async emitApproved(tenantId: string, bonuses: BonusEntity[]): Promise<void> {
    await this.emitEach(tenantId, 'bonus.approved', bonuses, (b) => ({
      approved_at: b.approvedAt!.toISOString(),
    }));
  }

  private async emitRejected(tenantId: string, bonuses: BonusEntity[]): Promise<void> {
    await this.emitEach(tenantId, 'bonus.rejected', bonuses, (b) => ({
      rejected_at: b.rejectedAt!.toISOString(),
      reason: b.reason!,
    }));
  }

  /** A `type` event for each bonus: its id, partner and amount, and what `more` adds. */
  private async emitEach<T extends BonusEventType>(
    tenantId: string,
    type: T,
    bonuses: BonusEntity[],
    more: (b: BonusEntity) => Omit<EventPayloads[T], 'bonus_id' | 'user_id' | 'amount_kopecks'>,
  ): Promise<void> {
    await this.events.emitMany(
      tenantId,
      bonuses.map((b) => ({
        type,
        payload: {
          bonus_id: b.id,
          user_id: b.serviceUserId,
          amount_kopecks: b.amountKopecks,
          ...more(b),
        } as EventPayloads[T],
      })),
    );
  }

  private async transitionError(tenantId: string, bonusId: string, to: string) {
    const current = await this.bonuses.find(tenantId, bonusId);
    return current
      ? new BonusTransitionError(bonusId, current.status, to)
      : new BonusNotFoundError(bonusId);
  }
}

export function toBonusResponse(b: BonusEntity): BonusResponse {
  return {
    bonus_id: b.id,
    user_id: b.serviceUserId,
    amount_kopecks: b.amountKopecks,
    currency: b.currency,
    source_type: b.sourceType,
    source_id: b.sourceId,
    status: b.status,
    tier: b.tier,
    approved_at: b.approvedAt?.toISOString() ?? null,
    rejected_at: b.rejectedAt?.toISOString() ?? null,
    reversed_at: b.reversedAt?.toISOString() ?? null,
    reason: b.reason,
    due_at: b.dueAt.toISOString(),
    created_at: b.createdAt.toISOString(),
    review: b.review ?? null,
    rule: ruleResponse(b.rule),
    explanation: b.explanation ?? null,
  };
}

/** A bonus's `rule` with its keys in the documented order (jsonb stores them its own way). */
export function ruleResponse(rule: BonusRule | null | undefined): BonusRule | null {
  if (!rule) return null;
  const { program_version_id, phase, tier, compressed_from } = rule;
  return { program_version_id, phase, tier, compressed_from };
}
