import { Injectable } from '@nestjs/common';
import type { Actor, AuditActor } from '../common/access/actor';
import { AuditService } from '../audit/audit.service';
import { BonusesService } from '../bonuses/bonuses.service';
import { offsetOf, type PageQueryDto, pagination } from '../common/http/pagination.dto';
import { newUlid } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import { EventsService } from '../outbox/events.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MembersService } from '../members/members.service';
import type { ListPayoutsQueryDto } from './dto/payout-requests.dto';
import type {
  PayoutListResponse,
  PayoutResponse,
  PayoutRunListResponse,
  PayoutRunResponse,
} from './dto/payout.response';
import { LedgerService } from './ledger/ledger.service';
import type { PayoutEntity, PayoutRunEntity } from './payout.entity';
import { PayoutNotFoundError, PayoutTransitionError } from './payout.errors';
import { nextScheduledRun, withPayoutDefaults } from '../tenants/payout-settings';
import { PayoutsRepository, type PayoutItemRow } from './payouts.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

export type SettledStatus = 'paid' | 'failed' | 'canceled';

/** A member's next payout in one currency, by the tenant's payout settings (docs/payouts.md §6). */
export interface NextPayout {
  schedule: string;
  /** The UTC day of the next scheduled run; null for a `manual` schedule. */
  date: Date | null;
  minimumKopecks: number;
  /** What a run on `date` (now, for `manual`) would pay the member from what is known now. */
  payableKopecks: number;
  /** How much `payableKopecks` still lacks to reach the minimum (0 once it does). */
  remainingKopecks: number;
}

/**
 * Payout runs and the payout life of docs/payouts.md: pending → paid | failed | canceled, each
 * once (a conditional UPDATE), with its ledger entry and event in the same transaction.
 */
@Injectable()
export class PayoutsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly payouts: PayoutsRepository,
    private readonly ledger: LedgerService,
    private readonly bonuses: BonusesService,
    private readonly events: EventsService,
    private readonly members: MembersService,
    private readonly audit: AuditService,
  ) {}

  /**
   * One run: a payout per active member and currency whose payable balance reaches the tenant's
   * minimum. `scheduleKey` (the schedule's day) makes a scheduled run happen once; null when that
   * day's run already exists.
   */
  run(
    tenant: TenantEntity,
    actor: AuditActor,
    scheduleKey: string | null = null,
  ): Promise<PayoutRunResponse | null> {
    const settings = withPayoutDefaults(tenant.payouts);
    return this.tx.transaction(async () => {
      // A run over a whole program is a few statements over every member: minutes on a large one.
      await this.tx.allowLongStatements();
      await this.payouts.lockTenantRuns(tenant.id);
      const createdAt = new Date();
      const run: PayoutRunEntity = {
        tenantId: tenant.id,
        id: `run_${newUlid()}`,
        trigger: scheduleKey ? 'schedule' : actor.type,
        scheduleKey,
        payoutsCount: 0,
        totalKopecks: 0,
        currencyTotals: {},
        createdAt,
      };
      if (!(await this.payouts.insertRun(run))) return null;
      // Set-wise: the payable items, the payouts, their items, ledger entries and events are
      // each one statement over the collected rows; no row goes through Node, nor any new id
      // (the database makes the payouts' and the events' ids).
      const count = await this.payouts.collectPayable(
        tenant.id,
        new Date(createdAt.getTime() - settings.hold_days * DAY_MS),
        settings.minimum_kopecks,
        settings.require_details,
      );
      if (count) {
        const totals = await this.payouts.insertRunPayouts(run);
        const payouts = this.payouts.newPayouts();
        await this.ledger.appendSelected(tenant.id, {
          sql: `SELECT member_id, currency, 'payout_created', -amount, amount, 0, NULL, id, NULL
                  FROM (${payouts}) p ORDER BY member_id, currency`,
          params: [],
        });
        // Keys in the order of EventPayloads['payout.created'], as JSON.stringify writes them.
        await this.events.emitSelected(tenant.id, 'payout.created', count, {
          sql: `SELECT n AS ord, '{"payout_id":' || to_json(id) || ',"user_id":'
                       || to_json(service_user_id) || ',"currency":' || to_json(currency::text)
                       || ',"amount_kopecks":' || amount || '}' AS payload
                  FROM (${payouts}) p`,
          params: [],
        });
        for (const { currency, total } of totals) {
          run.currencyTotals[currency] = Number(total);
          run.totalKopecks += Number(total);
        }
        run.payoutsCount = count;
      }
      await this.payouts.finishRun(run);
      await this.audit.record(
        tenant.id,
        actor,
        'payout_run.created',
        { type: 'payout_run', id: run.id },
        { payouts_count: run.payoutsCount, currency_totals: run.currencyTotals },
      );
      return toRunResponse(run);
    });
  }

  /**
   * The member's next payout in `currency`: the schedule's next run day, and what a run then
   * would pay from the items known now (bonuses approved `hold_days` before that day, open
   * clawbacks; `collectPayable`'s rule for one member) against the minimum.
   */
  async nextPayout(
    tenant: TenantEntity,
    memberId: string,
    currency: string,
    now: Date = new Date(),
  ): Promise<NextPayout> {
    const settings = withPayoutDefaults(tenant.payouts);
    const date = nextScheduledRun(settings.schedule, now);
    const at = date ?? now;
    const payable = await this.payouts.payableOf(
      tenant.id,
      memberId,
      currency,
      new Date(at.getTime() - settings.hold_days * DAY_MS),
    );
    return {
      schedule: settings.schedule,
      date,
      minimumKopecks: settings.minimum_kopecks,
      payableKopecks: payable,
      remainingKopecks: Math.max(0, settings.minimum_kopecks - payable),
    };
  }

  /** pending → paid: its bonuses become `paid`, held clawbacks of its bonuses become payable. */
  markPaid(
    tenantId: string,
    payoutId: string,
    reference: string,
    actor: Actor,
  ): Promise<PayoutResponse> {
    return this.tx.transaction(() =>
      this.markPaidInTransaction(tenantId, payoutId, reference, actor),
    );
  }

  async markPaidInTransaction(
    tenantId: string,
    payoutId: string,
    reference: string,
    actor: Actor,
  ): Promise<PayoutResponse> {
    const items = (await this.payouts.items(tenantId, [payoutId])).get(payoutId) ?? [];
    const bonusIds = items.filter((i) => i.kind === 'bonus').map((i) => i.item_id);
    // Bonus rows first, then the payout's: the order a reversal takes them in.
    await this.bonuses.lockForPayout(tenantId, bonusIds);
    const payout = await this.payouts.transition(tenantId, payoutId, 'paid', { reference });
    if (!payout) throw await this.transitionError(tenantId, payoutId, 'paid');
    await this.bonuses.markPaid(tenantId, bonusIds, payout.paidAt!);
    await this.payouts.openHeldClawbacks(tenantId, payoutId);
    await this.ledger.append(tenantId, [
      {
        memberId: payout.memberId,
        currency: payout.currency,
        kind: 'payout_paid',
        available: 0,
        inPayout: -payout.amountKopecks,
        paid: payout.amountKopecks,
        payoutId,
      },
    ]);
    await this.events.emit(tenantId, 'payout.paid', {
      ...eventBase(payout),
      reference,
      paid_at: payout.paidAt!.toISOString(),
      bonus_ids: bonusIds,
    });
    await this.audit.record(
      tenantId,
      actor,
      'payout.paid',
      { type: 'payout', id: payoutId },
      { reference },
    );
    return toPayoutResponse(payout, items);
  }

  /** pending → failed (the bank said no) or canceled (staff): its items return to the balance. */
  release(
    tenantId: string,
    payoutId: string,
    to: 'failed' | 'canceled',
    reason: string | null,
    actor: Actor,
  ): Promise<PayoutResponse> {
    return this.tx.transaction(async () => {
      const payout = await this.payouts.transition(tenantId, payoutId, to, {
        failureReason: reason ?? undefined,
      });
      if (!payout) throw await this.transitionError(tenantId, payoutId, to);
      await this.payouts.release(tenantId, payoutId);
      await this.ledger.append(tenantId, [
        {
          memberId: payout.memberId,
          currency: payout.currency,
          kind: to === 'failed' ? 'payout_failed' : 'payout_canceled',
          available: payout.amountKopecks,
          inPayout: -payout.amountKopecks,
          paid: 0,
          payoutId,
        },
      ]);
      if (to === 'failed') {
        await this.events.emit(tenantId, 'payout.failed', {
          ...eventBase(payout),
          reason: reason ?? '',
        });
      }
      await this.audit.record(
        tenantId,
        actor,
        `payout.${to}`,
        { type: 'payout', id: payoutId },
        reason ? { reason } : {},
      );
      const items = (await this.payouts.items(tenantId, [payoutId])).get(payoutId) ?? [];
      return toPayoutResponse(payout, items);
    });
  }

  async get(tenantId: string, payoutId: string): Promise<PayoutResponse> {
    const payout = await this.payouts.find(tenantId, payoutId);
    if (!payout) throw new PayoutNotFoundError(payoutId);
    const items = (await this.payouts.items(tenantId, [payoutId])).get(payoutId) ?? [];
    return toPayoutResponse(payout, items);
  }

  async list(tenantId: string, query: ListPayoutsQueryDto): Promise<PayoutListResponse> {
    let memberId: string | undefined;
    if (query.user_id) {
      const member = await this.members.findMember(tenantId, query.user_id);
      if (!member) return { items: [], pagination: pagination(query, 0) };
      memberId = member.id;
    }
    const [rows, total] = await this.payouts.list(
      tenantId,
      { status: query.status, runId: query.run_id, memberId },
      offsetOf(query),
      query.page_size,
    );
    const items = await this.payouts.items(
      tenantId,
      rows.map((p) => p.id),
    );
    return {
      items: rows.map((p) => toPayoutResponse(p, items.get(p.id) ?? [])),
      pagination: pagination(query, total),
    };
  }

  /** A member's payouts, newest first, one page (the widgets' payout history, embed/). */
  forMember(
    tenantId: string,
    memberId: string,
    offset: number,
    limit: number,
  ): Promise<[PayoutEntity[], number]> {
    return this.payouts.list(tenantId, { memberId }, offset, limit);
  }

  /** The tenant's runs, newest first, each with how many of its payouts are in each status. */
  async runs(tenantId: string, query: PageQueryDto): Promise<PayoutRunListResponse> {
    const [runs, total] = await this.payouts.listRuns(tenantId, offsetOf(query), query.page_size);
    const counts = await this.payouts.runStatusCounts(
      tenantId,
      runs.map((r) => r.id),
    );
    return {
      items: runs.map((r) => {
        const c = counts.get(r.id) ?? {};
        return {
          ...toRunResponse(r),
          trigger: r.trigger,
          status_counts: {
            pending: c.pending ?? 0,
            paid: c.paid ?? 0,
            failed: c.failed ?? 0,
            canceled: c.canceled ?? 0,
          },
        };
      }),
      pagination: pagination(query, total),
    };
  }

  private async transitionError(tenantId: string, payoutId: string, to: string) {
    const current = await this.payouts.find(tenantId, payoutId);
    return current
      ? new PayoutTransitionError(payoutId, current.status, to)
      : new PayoutNotFoundError(payoutId);
  }
}

function eventBase(p: PayoutEntity) {
  return {
    payout_id: p.id,
    user_id: p.serviceUserId,
    currency: p.currency,
    amount_kopecks: p.amountKopecks,
  };
}

export function toPayoutResponse(p: PayoutEntity, items: PayoutItemRow[]): PayoutResponse {
  return {
    payout_id: p.id,
    run_id: p.runId,
    user_id: p.serviceUserId,
    currency: p.currency,
    amount_kopecks: p.amountKopecks,
    status: p.status,
    items: items.map((i) =>
      i.kind === 'bonus'
        ? { bonus_id: i.item_id, amount_kopecks: i.amount_kopecks }
        : { clawback_id: i.item_id, amount_kopecks: i.amount_kopecks },
    ),
    reference: p.reference,
    failure_reason: p.failureReason,
    created_at: p.createdAt.toISOString(),
    paid_at: p.paidAt?.toISOString() ?? null,
  };
}

function toRunResponse(run: PayoutRunEntity): PayoutRunResponse {
  return {
    run_id: run.id,
    created_at: run.createdAt.toISOString(),
    payouts_count: run.payoutsCount,
    total_kopecks: run.totalKopecks,
    currency_totals: run.currencyTotals,
  };
}
