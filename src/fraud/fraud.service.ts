import { Injectable } from '@nestjs/common';
import { sameMailbox } from '../common/email-identity';
import type { TenantEntity } from '../tenants/tenant.entity';
import { isDisposableEmail } from './disposable-domains';
import { withFraudDefaults } from '../tenants/fraud-settings';
import { FraudRepository } from './fraud.repository';
import type { RiskSignal } from './risk-signal';

/** A lead about to be written, as the signals see it. */
export interface LeadFacts {
  referrerMemberId: string;
  email: string | null;
  clientIp: string | null;
}

/** A conversion being registered. */
export interface ConversionFacts {
  referrerMemberId: string;
  amountKopecks: number;
  currency: string;
  clientIp: string | null;
  /** The click the lead's ref carried, if any. */
  clickedAt: Date | null;
  now: Date;
}

/** Fewer earlier conversions than this and amount_outlier stays silent. */
const OUTLIER_MIN_SAMPLE = 20;

/**
 * The risk signals of docs/fraud.md, evaluated when a lead or a conversion is registered, in the
 * caller's transaction. Each signal is a switch and a threshold in the tenant's `fraud` settings;
 * what fires comes back with a sentence for the staff who review it. Nothing here refuses
 * anything: a signal only holds the resulting bonuses back for review.
 */
@Injectable()
export class FraudService {
  constructor(private readonly repo: FraudRepository) {}

  async onLead(tenant: TenantEntity, lead: LeadFacts): Promise<RiskSignal[]> {
    const settings = withFraudDefaults(tenant.fraud);
    const signals: RiskSignal[] = [];
    if (settings.self_referral.enabled) {
      const found = await this.selfReferral(tenant.id, lead.referrerMemberId, {
        email: lead.email,
        ip: lead.clientIp,
      });
      if (found) signals.push(found);
    }
    if (
      settings.duplicate_customer.enabled &&
      lead.email &&
      (await this.repo.emailLeadOfAnotherPartner(tenant.id, lead.email, lead.referrerMemberId))
    ) {
      signals.push({
        code: 'duplicate_customer',
        detail: `The customer's email ${lead.email} is already a lead of another partner.`,
      });
    }
    if (settings.ip_burst.enabled && lead.clientIp) {
      const limit = settings.ip_burst.leads_per_hour;
      // The lead is not written yet: it counts as one more.
      const count =
        1 + (await this.repo.leadsFromIpLastHour(tenant.id, lead.referrerMemberId, lead.clientIp));
      if (count > limit) {
        signals.push({
          code: 'ip_burst',
          detail: `${count} leads for this partner came from IP ${lead.clientIp} within an hour (more than ${limit}).`,
        });
      }
    }
    if (settings.disposable_email.enabled && lead.email && isDisposableEmail(lead.email)) {
      signals.push({
        code: 'disposable_email',
        detail: `The customer's email ${lead.email} is at a disposable-mail domain.`,
      });
    }
    return signals;
  }

  async onConversion(tenant: TenantEntity, conversion: ConversionFacts): Promise<RiskSignal[]> {
    const settings = withFraudDefaults(tenant.fraud);
    const signals: RiskSignal[] = [];
    if (settings.self_referral.enabled && conversion.clientIp) {
      const found = await this.selfReferral(tenant.id, conversion.referrerMemberId, {
        email: null,
        ip: conversion.clientIp,
      });
      if (found) signals.push(found);
    }
    if (settings.fast_conversion.enabled && conversion.clickedAt) {
      const seconds = (conversion.now.getTime() - conversion.clickedAt.getTime()) / 1000;
      if (seconds >= 0 && seconds < settings.fast_conversion.seconds) {
        signals.push({
          code: 'fast_conversion',
          detail: `The order came ${Math.floor(seconds)} s after the click on the partner's link (less than ${settings.fast_conversion.seconds} s).`,
        });
      }
    }
    if (settings.amount_outlier.enabled) {
      const { count, median } = await this.repo.recentMedian(tenant.id, conversion.currency);
      const factor = settings.amount_outlier.factor;
      if (count >= OUTLIER_MIN_SAMPLE && conversion.amountKopecks > factor * median) {
        signals.push({
          code: 'amount_outlier',
          detail: `The amount ${conversion.amountKopecks} kopecks is more than ${factor} times the median of the last ${count} conversions (${Math.round(median)} kopecks).`,
        });
      }
    }
    return signals;
  }

  /**
   * The customer is the partner's own network: their email is an upline's (the referrer's own is
   * refused outright before this), or they come from the referrer's or an upline's last IP.
   */
  private async selfReferral(
    tenantId: string,
    referrerMemberId: string,
    customer: { email: string | null; ip: string | null },
  ): Promise<RiskSignal | undefined> {
    if (!customer.email && !customer.ip) return undefined;
    const chain = await this.repo.chainContacts(tenantId, referrerMemberId);
    for (const member of chain) {
      const who = member.position === 1 ? 'the referring partner' : `upline ${member.position - 1}`;
      // The same mailbox, not the same string: +tags, Gmail dots and aliases do not hide it.
      if (member.position > 1 && sameMailbox(customer.email, member.email)) {
        return {
          code: 'self_referral',
          detail: `The customer's email is that of ${who} (${member.serviceUserId}) in the partner's own network.`,
        };
      }
      if (customer.ip && member.lastSeenIp === customer.ip) {
        return {
          code: 'self_referral',
          detail: `The customer came from IP ${customer.ip}, last seen for ${who} (${member.serviceUserId}).`,
        };
      }
    }
    return undefined;
  }
}
