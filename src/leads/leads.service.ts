import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { Actor } from '../common/access/actor';
import { newId } from '../common/ids';
import { TransactionHost } from '../database/transaction-host';
import { BonusesService } from '../bonuses/bonuses.service';
import { EventsService } from '../outbox/events.service';
import { FraudService } from '../fraud/fraud.service';
import { GroupsService } from '../groups/groups.service';
import { reviewFor } from '../fraud/risk-signal';
import { OffersService } from '../offers/offers.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { ReferrerNotFoundError } from '../members/member.errors';
import { MembersService } from '../members/members.service';
import type { CreateLeadDto } from './dto/create-lead.dto';
import type { ChangeLeadStatusDto } from './dto/lead-status.dto';
import type { LeadCreatedResponse, LeadResponse } from './dto/lead.response';
import { canConvert, statusesAllowingTransitionTo } from './lead-transitions';
import type { LeadEntity, LeadSource, LeadStatus } from './lead.entity';
import { sameMailbox } from '../common/email-identity';
import { LeadNotFoundError, LeadTransitionError, SelfReferralError } from './lead.errors';
import { LeadsRepository } from './leads.repository';

@Injectable()
export class LeadsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly leads: LeadsRepository,
    private readonly members: MembersService,
    private readonly offers: OffersService,
    private readonly bonuses: BonusesService,
    private readonly events: EventsService,
    private readonly audit: AuditService,
    private readonly fraud: FraudService,
    private readonly groups: GroupsService,
  ) {}

  /**
   * Registers a lead (`new`), emits `lead.created` and, with a lead bonus in the paying program,
   * accrues it pending for an active referrer: all in one transaction.
   */
  create(
    tenant: TenantEntity,
    dto: CreateLeadDto,
    source: LeadSource,
    clickedAt: Date | null = null,
    anonymous = source === 'lead_form',
  ): Promise<LeadCreatedResponse> {
    return this.createLead(tenant, dto, source, clickedAt, anonymous).then((lead) => ({
      lead_id: lead.id,
      status: lead.status,
    }));
  }

  /**
   * `create`, answering the lead itself (a conversion registered by promo code or ref creates its
   * lead this way, in its own transaction). `clickedAt` is the click the lead's ref carried.
   * `anonymous`: posted by anyone holding the partner's ref (the lead-form widget, the landing
   * page's form), not by the tenant's authenticated back end (docs/fraud.md, duplicate_customer).
   */
  createLead(
    tenant: TenantEntity,
    dto: CreateLeadDto,
    source: LeadSource,
    clickedAt: Date | null = null,
    anonymous = source === 'lead_form',
  ): Promise<LeadEntity> {
    return this.tx.transaction(async () => {
      await this.members.holdOffBans(tenant.id);
      const referrer = await this.members.findMember(tenant.id, dto.referrer_user_id);
      if (!referrer) throw new ReferrerNotFoundError(dto.referrer_user_id);
      if (dto.offer_id) await this.offers.get(tenant.id, dto.offer_id);
      const email = dto.contact.email ?? null;
      // The same mailbox (docs/fraud.md, "Comparing emails"), not only the same string.
      if (sameMailbox(email, referrer.email)) {
        throw new SelfReferralError();
      }

      const now = new Date();
      const lead: LeadEntity = {
        tenantId: tenant.id,
        id: newId('lead'),
        referrerMemberId: referrer.id,
        referrerUserId: referrer.serviceUserId,
        offerId: dto.offer_id ?? null,
        contactName: dto.contact.name,
        contactEmail: email,
        contactPhone: dto.contact.phone ?? null,
        metadata: dto.metadata ?? {},
        status: 'new',
        source,
        statusReason: null,
        createdAt: now,
        updatedAt: now,
        clientIp: dto.client?.ip ?? null,
        clientUserAgent: dto.client?.user_agent ?? null,
        clickedAt,
        anonymous,
      };
      const signals = await this.fraud.onLead(tenant, {
        referrerMemberId: referrer.id,
        email,
        clientIp: lead.clientIp ?? null,
      });
      lead.riskSignals = signals.length ? signals : null;
      await this.leads.insert(lead);
      await this.events.emit(tenant.id, 'lead.created', {
        lead_id: lead.id,
        referrer_user_id: lead.referrerUserId,
        contact: { name: lead.contactName, email: lead.contactEmail },
        offer_id: lead.offerId,
        metadata: lead.metadata,
        source: lead.source,
      });

      const program = await this.groups.leadProgram(tenant, lead.offerId, referrer.groupId);
      if (program.lead_bonus_kopecks > 0 && referrer.isActive) {
        await this.bonuses.accrue(tenant.id, [
          {
            memberId: referrer.id,
            serviceUserId: referrer.serviceUserId,
            amountKopecks: program.lead_bonus_kopecks,
            currency: tenant.currency,
            sourceType: 'lead',
            sourceId: lead.id,
            tier: null,
            gracePeriodHours: program.grace_period_hours,
            review: reviewFor(signals),
          },
        ]);
      }
      return lead;
    });
  }

  /**
   * Moves a lead along docs/money.md's transitions; rejecting it rejects its pending lead bonuses.
   * `actor` is given for staff requests, which the audit log records.
   */
  changeStatus(
    tenantId: string,
    leadId: string,
    dto: ChangeLeadStatusDto,
    actor?: Actor,
  ): Promise<LeadResponse> {
    return this.tx.transaction(async () => {
      const moved = await this.leads.transition(
        tenantId,
        leadId,
        statusesAllowingTransitionTo(dto.status),
        dto.status,
        dto.reason ?? null,
      );
      const lead = await this.leads.find(tenantId, leadId);
      if (!lead) throw new LeadNotFoundError(leadId);
      if (!moved) throw new LeadTransitionError(leadId, lead.status, dto.status);
      if (dto.status === 'rejected') await this.bonuses.rejectPendingForLead(tenantId, leadId);
      if (actor) {
        await this.audit.record(
          tenantId,
          actor,
          'lead.status_changed',
          { type: 'lead', id: leadId },
          {
            status: dto.status,
            reason: dto.reason ?? null,
          },
        );
      }
      return toLeadResponse(lead);
    });
  }

  /**
   * For a conversion registered by promo code or ref, in its transaction: the partner's lead of
   * this customer (by `customer_external_id`, else email), locked, or a new one. A customer's
   * renewals are then one lead's conversions and advance its program's phases (docs/money.md §2).
   * A lock on the customer key makes two first orders of one customer at once make one lead.
   */
  async customerLead(
    tenant: TenantEntity,
    dto: CreateLeadDto,
    source: LeadSource,
    clickedAt: Date | null,
  ): Promise<LeadEntity> {
    const externalId = dto.metadata?.customer_external_id;
    const customer =
      typeof externalId === 'string'
        ? { externalId }
        : dto.contact.email
          ? { email: dto.contact.email }
          : undefined;
    if (customer) {
      await this.leads.lockCustomerKey(
        tenant.id,
        dto.referrer_user_id,
        customer.externalId ?? customer.email.toLowerCase(),
      );
      const lead = await this.leads.lockCustomerLead(tenant.id, dto.referrer_user_id, customer);
      if (lead) return lead;
    }
    return this.createLead(tenant, dto, source, clickedAt);
  }

  /**
   * For a conversion, in its transaction: locks the lead, so conversions of one lead go one at a
   * time. Whether it may convert is `assertConvertible`'s question (a repeated order is answered
   * first, whatever the lead's status now).
   */
  async lockForConversion(tenantId: string, leadId: string): Promise<LeadEntity> {
    const lead = await this.leads.lock(tenantId, leadId);
    if (!lead) throw new LeadNotFoundError(leadId);
    return lead;
  }

  findLead(tenantId: string, leadId: string): Promise<LeadEntity | null> {
    return this.leads.find(tenantId, leadId);
  }

  /** A rejected lead converts no more: 409 `invalid_transition`. */
  assertConvertible(lead: LeadEntity): void {
    if (!canConvert(lead.status)) throw new LeadTransitionError(lead.id, lead.status, 'converted');
  }

  /** A lead that may convert, without locking (preview). */
  async getConvertible(tenantId: string, leadId: string): Promise<LeadEntity> {
    const lead = await this.leads.find(tenantId, leadId);
    if (!lead) throw new LeadNotFoundError(leadId);
    this.assertConvertible(lead);
    return lead;
  }

  /** A partner's leads for the widgets, newest first; `knownTotal` spares counting them. */
  forReferrer(
    tenantId: string,
    memberId: string,
    status: LeadStatus | undefined,
    offset: number,
    limit: number,
    knownTotal?: number,
  ) {
    return this.leads.forReferrer(tenantId, memberId, status, offset, limit, knownTotal);
  }

  recentForReferrer(tenantId: string, memberId: string, limit: number): Promise<LeadEntity[]> {
    return this.leads.recentForReferrer(tenantId, memberId, limit);
  }

  async markConverted(lead: LeadEntity): Promise<void> {
    if (lead.status === 'converted') return;
    await this.leads.transition(lead.tenantId, lead.id, ['new', 'processed'], 'converted', null);
  }
}

function toLeadResponse(lead: LeadEntity): LeadResponse {
  return {
    lead_id: lead.id,
    status: lead.status,
    source: lead.source,
    referrer_user_id: lead.referrerUserId,
    offer_id: lead.offerId,
    created_at: lead.createdAt.toISOString(),
    updated_at: lead.updatedAt.toISOString(),
  };
}
