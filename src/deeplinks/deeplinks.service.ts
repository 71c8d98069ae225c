import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { isUniqueViolation } from '../common/errors/pg-errors';
import { newId } from '../common/ids';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import type { TenantEntity } from '../tenants/tenant.entity';
import { UsersService } from '../users/users.service';
import type { DeeplinkEntity } from './deeplink.entity';
import { InvalidRefError, TargetNotAllowedError } from './deeplink.errors';
import { DeeplinksRepository } from './deeplinks.repository';
import type { CreateReferralLinkDto, ReferralLinkResponse } from './dto/referral-link.dto';
import { allowedHostsOf, isAllowedTarget } from './link-target';
import { type RefClaims, signRef, verifyRef } from './signed-ref';

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** Where a short link leads (SPEC 5). */
export type LinkDestination =
  | { kind: 'redirect'; location: string }
  | { kind: 'landing'; link: DeeplinkEntity; tenant: TenantEntity; ref: string };

@Injectable()
export class DeeplinksService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly links: DeeplinksRepository,
    private readonly users: UsersService,
  ) {}

  /**
   * The partner's link for these six parameters: a new one, or the existing one with
   * `reused: true`. The unique index decides, so concurrent identical requests make one link.
   */
  async createOrReuse(
    tenant: TenantEntity,
    memberId: string,
    dto: CreateReferralLinkDto,
  ): Promise<ReferralLinkResponse> {
    if (
      !isAllowedTarget(
        dto.target_type,
        dto.target_id,
        allowedHostsOf(tenant.allowedOrigins, tenant.linkDomains),
      )
    ) {
      throw new TargetNotAllowedError();
    }
    const member = await this.users.getMember(tenant.id, memberId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const link: DeeplinkEntity = {
        tenantId: tenant.id,
        id: newId('deeplink'),
        memberId: member.id,
        serviceUserId: member.serviceUserId,
        targetType: dto.target_type,
        targetId: dto.target_id,
        recommendationText: dto.recommendation_text ?? '',
        promoCode: dto.promo_code ?? '',
        code: newCode(),
        clicksCount: 0,
        createdAt: new Date(),
      };
      try {
        if (await this.links.insertIfNew(link)) return this.toResponse(link, false);
      } catch (error) {
        if (isUniqueViolation(error)) continue; // the random code was taken: draw another
        throw error;
      }
      const existing = await this.links.findSame(link);
      if (existing) return this.toResponse(existing, true);
    }
    throw new Error('Could not allocate a short-link code');
  }

  /** Records the click and says where the link leads; undefined for an unknown code. */
  async follow(code: string): Promise<LinkDestination | undefined> {
    const found = await this.links.findByCodeWithTenant(code);
    if (!found) return undefined;
    const { link, tenant } = found;
    await this.links.recordClick(link);
    const ref = this.signedRef(link);
    if (link.targetType === 'website') {
      return { kind: 'redirect', location: withRef(link.targetId, ref) } satisfies LinkDestination;
    }
    const template = tenant.linkTemplates[link.targetType];
    if (template) {
      const location = withRef(template.replaceAll('{id}', encodeURIComponent(link.targetId)), ref);
      return { kind: 'redirect', location } satisfies LinkDestination;
    }
    return { kind: 'landing', link, tenant, ref } satisfies LinkDestination;
  }

  byCode(code: string): Promise<DeeplinkEntity | null> {
    return this.links.findByCode(code);
  }

  /** The referrer named by a signed ref of this tenant, or 422 `invalid_ref`. */
  verifyRef(ref: string, tenantId: string): RefClaims {
    const claims = verifyRef(ref, this.config.refSigningSecret, tenantId);
    if (!claims) throw new InvalidRefError();
    return claims;
  }

  private signedRef(link: DeeplinkEntity): string {
    return signRef(
      { t: link.tenantId, r: link.serviceUserId, d: link.id },
      this.config.refSigningSecret,
    );
  }

  private toResponse(link: DeeplinkEntity, reused: boolean): ReferralLinkResponse {
    return {
      short_url: `${this.config.shortLinkBaseUrl}/${link.code}`,
      signed_ref: this.signedRef(link),
      deeplink_id: link.id,
      code: link.code,
      reused,
    };
  }
}

/**
 * The target with `ref=<signed_ref>` added, its other query parameters kept byte for byte
 * (URLSearchParams would re-encode them: `a%20b` would become `a+b`). An existing `ref` is replaced.
 */
export function withRef(target: string, ref: string): string {
  const url = new URL(target);
  const name = (part: string) => {
    try {
      return decodeURIComponent(part.split('=')[0].replace(/\+/g, ' '));
    } catch {
      return part;
    }
  };
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '' && name(part) !== 'ref');
  url.search = [...kept, `ref=${encodeURIComponent(ref)}`].join('&');
  return url.toString();
}
