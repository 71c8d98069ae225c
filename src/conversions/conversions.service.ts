import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { BonusesService } from '../bonuses/bonuses.service';
import { BountiesService } from '../bounties/bounties.service';
import type { BonusRule } from '../bonuses/bonus.entity';
import type { Actor } from '../common/access/actor';
import { newId } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import { EventsService } from '../outbox/events.service';
import { FraudService } from '../fraud/fraud.service';
import { GroupsService } from '../groups/groups.service';
import { mergeSignals, reviewFor } from '../fraud/risk-signal';
import type { LeadEntity } from '../leads/lead.entity';
import { LeadsService } from '../leads/leads.service';
import { maxTierCount, needsQualification, type Program } from '../tenants/program';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MembersService } from '../members/members.service';
import { cascade, type CascadeShare, tierIndex } from './cascade';
import { byTier, toConversionResponse } from './conversion-response';
import { ConversionAttribution } from './conversion-attribution';
import { type PhaseChoice, pastLastPhaseNote, phaseOf } from './phases';
import { explainRule } from './rule-explanation';
import { QualifiedCascade } from './qualified-cascade';
import { Promotions } from './promotions';
import type { PromoteTo } from '../groups/group.entity';
import type { ConversionEntity } from './conversion.entity';
import {
  AlreadyReversedError,
  ConversionNotFoundError,
  ExternalOrderIdConflictError,
} from './conversion.errors';
import { ConversionsRepository } from './conversions.repository';
import type { PreviewConversionDto, RegisterConversionDto } from './dto/conversion-requests.dto';
import type {
  ConversionPreviewResponse,
  ConversionResponse,
  ReversalResponse,
} from './dto/conversion.response';

/** A share of the cascade with the rule that pays it (docs/money.md §2, "Versions"). */
type RuledShare = CascadeShare & { rule: BonusRule; explanation: string };

@Injectable()
export class ConversionsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly conversions: ConversionsRepository,
    private readonly leads: LeadsService,
    private readonly members: MembersService,
    private readonly bonuses: BonusesService,
    private readonly events: EventsService,
    private readonly audit: AuditService,
    private readonly fraud: FraudService,
    private readonly attribution: ConversionAttribution,
    private readonly groups: GroupsService,
    private readonly qualified: QualifiedCascade,
    private readonly promotions: Promotions,
    private readonly bounties: BountiesService,
  ) {}

  /**
   * The note the reward rules wrote on each of these conversions (why one paid nothing, SPEC 15),
   * by conversion id; conversions without one are left out. For the partner portal's Earnings.
   */
  async rewardNotes(tenantId: string, conversionIds: string[]): Promise<Map<string, string>> {
    if (!conversionIds.length) return new Map();
    const rows = await this.conversions.rewardNotes(tenantId, conversionIds);
    return new Map(rows.map((r) => [r.id, r.reward_note]));
  }

  /**
   * Registers a conversion and pays the cascade (docs/money.md §5), in one transaction. The lead
   * row lock serialises conversions of one lead, so the same order sent twice (or twenty times at
   * once) finds the first one and answers with it; the unique (tenant, external_order_id)
   * constraint settles the rarer race of one order sent for two leads.
   */
  register(
    tenant: TenantEntity,
    dto: RegisterConversionDto,
    actor?: Actor,
  ): Promise<ConversionResponse> {
    return this.tx.transaction(async () => {
      await this.members.holdOffBans(tenant.id);
      const attribution = await this.attribution.resolve(tenant, dto);
      let lead: LeadEntity;
      if (attribution) {
        // By promo code or ref (docs/fraud.md): the order's own lock makes one lead per order.
        await this.conversions.lockOrder(tenant.id, dto.external_order_id);
        const existing = await this.conversions.findByExternalOrderId(
          tenant.id,
          dto.external_order_id,
        );
        if (existing) return this.replayAttributed(existing, dto, attribution.referrerUserId);
        lead = await this.leads.customerLead(
          tenant,
          attribution.lead,
          attribution.source,
          attribution.clickedAt,
        );
      } else {
        lead = await this.leads.lockForConversion(tenant.id, dto.lead_id!);
        const existing = await this.conversions.findByExternalOrderId(
          tenant.id,
          dto.external_order_id,
        );
        if (existing) return this.replay(existing, dto);
        this.leads.assertConvertible(lead);
      }

      const now = new Date();
      const { program, shares, rewardNote, promotion } = await this.shares(
        tenant,
        lead,
        dto.amount_kopecks,
        dto.currency,
        now,
      );
      const signals = mergeSignals(
        lead.riskSignals ?? [],
        await this.fraud.onConversion(tenant, {
          referrerMemberId: lead.referrerMemberId,
          amountKopecks: dto.amount_kopecks,
          currency: dto.currency,
          clientIp: dto.client?.ip ?? null,
          clickedAt: lead.clickedAt ?? null,
          now,
        }),
      );
      const conversion: ConversionEntity = {
        tenantId: tenant.id,
        id: newId('conversion'),
        leadId: lead.id,
        amountKopecks: dto.amount_kopecks,
        currency: dto.currency,
        externalOrderId: dto.external_order_id,
        status: 'registered',
        reversedAt: null,
        reverseReason: null,
        createdAt: now,
        clientIp: dto.client?.ip ?? null,
        clientUserAgent: dto.client?.user_agent ?? null,
        rewardNote,
      };
      if (!(await this.conversions.insertIfNew(conversion))) {
        const winner = await this.conversions.findByExternalOrderId(
          tenant.id,
          dto.external_order_id,
        );
        return attribution
          ? this.replayAttributed(winner!, dto, attribution.referrerUserId)
          : this.replay(winner!, dto);
      }
      const bonuses = await this.bonuses.accrue(
        tenant.id,
        shares.map((share) => ({
          memberId: share.memberId,
          serviceUserId: share.serviceUserId,
          amountKopecks: share.amountKopecks,
          currency: dto.currency,
          sourceType: 'conversion' as const,
          sourceId: conversion.id,
          tier: share.tier,
          gracePeriodHours: program.grace_period_hours,
          review: reviewFor(signals),
          rule: share.rule,
          explanation: share.explanation,
        })),
      );
      await this.events.emit(tenant.id, 'conversion.cascaded', {
        conversion_id: conversion.id,
        lead_id: lead.id,
        amount_kopecks: conversion.amountKopecks,
        cascaded_bonuses: bonuses.map((b) => ({
          user_id: b.serviceUserId,
          amount_kopecks: b.amountKopecks,
          tier: b.tier!,
        })),
      });
      await this.leads.markConverted(lead);
      await this.promotions.afterConversion(tenant, lead.referrerMemberId, promotion, now);
      await this.bounties.afterConversion(tenant, lead.referrerMemberId, now);
      if (actor) {
        await this.audit.record(
          tenant.id,
          actor,
          'conversion.registered',
          { type: 'conversion', id: conversion.id },
          { external_order_id: dto.external_order_id, amount_kopecks: dto.amount_kopecks },
        );
      }
      const response = toConversionResponse(conversion, bonuses);
      return attribution ? { ...response, lead_id: lead.id } : response;
    });
  }

  /** The same order again by promo code or ref: the first one, if its partner and sums match. */
  private async replayAttributed(
    existing: ConversionEntity,
    dto: RegisterConversionDto,
    referrerUserId: string,
  ): Promise<ConversionResponse> {
    const lead = await this.leads.findLead(existing.tenantId, existing.leadId);
    const answer = await this.replay(existing, dto, lead?.referrerUserId === referrerUserId);
    return { ...answer, lead_id: existing.leadId };
  }

  /** What `register` would pay, without writing or emitting anything. */
  async preview(
    tenant: TenantEntity,
    dto: PreviewConversionDto,
  ): Promise<ConversionPreviewResponse> {
    const lead = await this.leads.getConvertible(tenant.id, dto.lead_id);
    const { shares, rewardNote } = await this.shares(
      tenant,
      lead,
      dto.amount_kopecks,
      dto.currency,
      new Date(),
    );
    return {
      lead_id: lead.id,
      amount_kopecks: dto.amount_kopecks,
      currency: dto.currency,
      cascaded_bonuses: shares.map((s) => ({
        user_id: s.serviceUserId,
        amount_kopecks: s.amountKopecks,
        tier: s.tier,
        rule: s.rule,
        explanation: s.explanation,
      })),
      ...(rewardNote ? { reward_note: rewardNote } : {}),
    };
  }

  /**
   * Cancels a conversion once: its pending and approved bonuses become `reversed` and
   * `conversion.reversed` lists them as `written_off`. `actor` is given for staff requests.
   */
  reverse(
    tenantId: string,
    conversionId: string,
    reason: string,
    actor?: Actor,
  ): Promise<ReversalResponse> {
    return this.tx.transaction(async () => {
      const conversion = await this.conversions.reverse(tenantId, conversionId, reason);
      if (!conversion) {
        if (await this.conversions.find(tenantId, conversionId))
          throw new AlreadyReversedError(conversionId);
        throw new ConversionNotFoundError(conversionId);
      }
      const reversed = await this.bonuses.reverseForConversion(tenantId, conversionId);
      const writtenOff = byTier(reversed).map((b) => ({
        bonus_id: b.id,
        user_id: b.serviceUserId,
        amount_kopecks: b.amountKopecks,
        ...(b.clawbackId ? { clawback: true as const } : {}),
      }));
      const reversedAt = conversion.reversedAt!.toISOString();
      await this.events.emit(tenantId, 'conversion.reversed', {
        conversion_id: conversionId,
        reversed_at: reversedAt,
        reason,
        written_off: writtenOff,
      });
      if (actor) {
        await this.audit.record(
          tenantId,
          actor,
          'conversion.reversed',
          {
            type: 'conversion',
            id: conversionId,
          },
          { reason },
        );
      }
      return {
        conversion_id: conversionId,
        status: 'reversed',
        reversed_at: reversedAt,
        reason,
        written_off: writtenOff,
      };
    });
  }

  /**
   * The program that pays the lead (docs/partners.md, "Which program pays": chosen once, by the
   * referrer), the phase of it that pays a conversion registered `at` (docs/money.md §2), and its
   * cascade over the lead's chain, with qualification and compression when its tiers ask for
   * them; each share with the rule that pays it and that rule's sentence. Past a last phase with a
   * limit: no shares, and the note why.
   */
  private async shares(
    tenant: TenantEntity,
    lead: LeadEntity,
    amountKopecks: number,
    currency: string,
    at: Date,
  ): Promise<{
    program: Program;
    shares: RuledShare[];
    rewardNote: string | null;
    /** The promotion of the referrer's group, checked once the conversion is written. */
    promotion: PromoteTo | null;
  }> {
    const { program, versionId, chain, promotion } = await this.groups.conversionProgram(
      tenant,
      lead.offerId,
      lead.referrerMemberId,
    );
    let phase: PhaseChoice | null = null;
    if (program.phases) {
      const earlier = await this.conversions.registrationTimes(tenant.id, lead.id);
      phase = phaseOf(program.phases, earlier, at);
      if (!phase) {
        return {
          program,
          shares: [],
          rewardNote: pastLastPhaseNote(program.phases),
          promotion,
        };
      }
    }
    const tiers = phase?.phase.tiers ?? program.tiers!;
    const shares = needsQualification(program, tiers)
      ? await this.qualified.shares(tenant.id, currency, amountKopecks, tiers, chain, {
          compression: program.compression === true,
          // The chain was fetched as far as the program's tiers reach: shorter, the network ends.
          complete: chain.length < maxTierCount(program),
          at,
        })
      : cascade(amountKopecks, tiers, chain);
    return {
      program,
      shares: shares.map((share) => ({
        ...share,
        rule: {
          program_version_id: versionId,
          phase: phase?.number ?? 1,
          tier: share.tier,
          compressed_from: share.compressedFrom,
        },
        explanation: explainRule(
          {
            amountKopecks,
            currency,
            tier: tiers[tierIndex(share.tier)],
            phase,
            compressedFrom: share.compressedFrom,
          },
          tenant.locale,
        ),
      })),
      rewardNote: null,
      promotion,
    };
  }

  /** The same order again: the first conversion if it matches, else 409. */
  private async replay(
    existing: ConversionEntity,
    dto: RegisterConversionDto,
    sameSource = existing.leadId === dto.lead_id,
  ): Promise<ConversionResponse> {
    if (
      !sameSource ||
      existing.amountKopecks !== dto.amount_kopecks ||
      existing.currency !== dto.currency
    ) {
      throw new ExternalOrderIdConflictError(dto.external_order_id);
    }
    const bonuses = await this.bonuses.bonusesOfSource(
      existing.tenantId,
      'conversion',
      existing.id,
    );
    return toConversionResponse(existing, bonuses);
  }
}
