import { Injectable } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../common/errors/domain-error';
import { DeeplinksService } from '../deeplinks/deeplinks.service';
import type { ClientHintsDto } from '../fraud/client-hints.dto';
import type { CreateLeadDto } from '../leads/dto/create-lead.dto';
import type { LeadSource } from '../leads/lead.entity';
import type { TenantEntity } from '../tenants/tenant.entity';
import type { RegisterConversionDto } from './dto/conversion-requests.dto';

export class PromoCodeNotFoundError extends NotFoundError {
  constructor(promoCode: string) {
    super('promo_code_not_found', `No link in this tenant has the promo code "${promoCode}".`);
  }
}

/** An order credited by promo code or ref: the lead to create for it, and how it came. */
export interface Attribution {
  /** The partner's service user id. */
  referrerUserId: string;
  source: LeadSource;
  /** The click a ref carried; null for a promo code or an unstamped ref. */
  clickedAt: Date | null;
  lead: CreateLeadDto;
}

/**
 * docs/fraud.md, "Promo codes": a conversion names its partner by `lead_id`, or by `promo_code`
 * or `signed_ref` plus `customer` (then the service creates the lead). Exactly one of the three.
 */
@Injectable()
export class ConversionAttribution {
  constructor(private readonly links: DeeplinksService) {}

  /** Undefined for a `lead_id` registration; else the partner and the lead to create. */
  async resolve(
    tenant: TenantEntity,
    dto: RegisterConversionDto,
  ): Promise<Attribution | undefined> {
    const given = (['lead_id', 'promo_code', 'signed_ref'] as const).filter(
      (field) => dto[field] !== undefined,
    );
    if (given.length !== 1) {
      throw new ValidationFailedError([
        { field: 'lead_id', message: 'give exactly one of lead_id, promo_code or signed_ref' },
      ]);
    }
    if (dto.lead_id !== undefined) {
      if (dto.customer !== undefined) {
        throw new ValidationFailedError([
          { field: 'customer', message: 'only with promo_code or signed_ref' },
        ]);
      }
      return undefined;
    }
    const customer = dto.customer;
    if (!customer || (!customer.external_id && !customer.email && !customer.name)) {
      throw new ValidationFailedError([
        {
          field: 'customer',
          message: 'required with promo_code or signed_ref: external_id, email or name',
        },
      ]);
    }
    let referrerUserId: string;
    let clickedAt: Date | null = null;
    let source: LeadSource;
    if (dto.promo_code !== undefined) {
      const link = await this.links.byPromoCode(tenant.id, dto.promo_code);
      if (!link) throw new PromoCodeNotFoundError(dto.promo_code);
      referrerUserId = link.serviceUserId;
      source = 'promo_code';
    } else {
      const claims = this.links.verifyRef(dto.signed_ref!, tenant);
      referrerUserId = claims.r;
      clickedAt = claims.c ? new Date(claims.c) : null;
      source = 'referral_link';
    }
    return {
      referrerUserId,
      source,
      clickedAt,
      lead: {
        referrer_user_id: referrerUserId,
        contact: {
          name: customer.name ?? customer.email ?? customer.external_id!,
          ...(customer.email ? { email: customer.email } : {}),
        },
        metadata: customer.external_id ? { customer_external_id: customer.external_id } : {},
        ...(dto.client ? { client: dto.client satisfies ClientHintsDto } : {}),
      },
    };
  }
}
