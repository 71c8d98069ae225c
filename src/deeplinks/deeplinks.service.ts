import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { isUniqueViolation } from '../common/errors/pg-errors';
import { newId } from '../common/ids';
import { encodeLocation } from '../common/pages/send';
import { TtlCache } from '../common/cache/ttl-cache';
import { AppConfig } from '../config/app-config';
import { TransactionHost } from '../database/transaction-host';
import type { TenantEntity } from '../tenants/tenant.entity';
import { fillLinkTemplate } from '../tenants/link-templates';
import { LOOKUP_TAKEN } from '../tenants/tenant-lookups';
import { TenantsService } from '../tenants/tenants.service';
import {
  clickRefSigner,
  isRefExpired,
  type RefClaims,
  signRef,
  verifyRef,
} from '../members/signed-ref';
import { InvalidRefError, RefExpiredError } from '../members/member.errors';
import { MembersService } from '../members/members.service';
import { ClickCounter } from './click-counter';
import type { DeeplinkEntity } from './deeplink.entity';
import { PromoCodeTakenError, TargetNotAllowedError } from './deeplink.errors';
import { DeeplinksRepository } from './deeplinks.repository';
import type {
  CreateReferralLinkDto,
  ReferralLinkListResponse,
  ReferralLinkResponse,
} from './dto/referral-link.dto';
import { allowedHostsOf, isAllowedTarget } from './link-target';

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function newCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/**
 * Where a short link leads (docs/embedding.md §4): a redirect whose `ref` is stamped with the
 * click time (docs/fraud.md; `location` encoded as `Location` carries it), the landing page, or
 * 410 for a banned partner's link.
 */
export type LinkDestination =
  | { kind: 'redirect'; link: DeeplinkEntity; location: string }
  | { kind: 'landing'; link: DeeplinkEntity; tenant: TenantEntity }
  | { kind: 'disabled'; link: DeeplinkEntity };

/**
 * A cached redirect: the target with `ref=` put in its place (`before` + ref + `after`), and the
 * link's ref signer, so that a click costs one HMAC and two concatenations, never a URL parse.
 */
type CachedDestination =
  | {
      kind: 'redirect';
      link: DeeplinkEntity;
      before: string;
      after: string;
      ref: (clickedAt: number) => string;
    }
  | Exclude<LinkDestination, { kind: 'redirect' }>;

const REF_SLOT = 'REF-SLOT-0c5d2a';

/** Short links kept in memory per process (the redirect's hot path reads no database). */
const CACHED_LINKS = 50_000;

/** How many of a partner's links the link widget lists. */
const MAX_LISTED_LINKS = 50;

@Injectable()
export class DeeplinksService {
  /**
   * code → destination. A link never changes once made; its tenant's `link_templates` may, so a
   * change reaches short links within CACHE_TTL_MS (at once in the process that made it).
   */
  private readonly destinations: TtlCache<string, CachedDestination>;

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly links: DeeplinksRepository,
    private readonly members: MembersService,
    private readonly clicks: ClickCounter,
    tenants: TenantsService,
  ) {
    this.destinations = new TtlCache(config.cacheTtlMs, CACHED_LINKS);
    tenants.onChanged((tenantId) =>
      this.destinations.deleteWhere((d) => d.link.tenantId === tenantId),
    );
  }
  /** Writes the clicks counted in this process now, not at the next batch (the demo's seeding). */
  flushClicks(): Promise<void> {
    return this.clicks.flush();
  }

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
    const member = await this.members.getMember(tenant.id, memberId);
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
        // The drawn code is taken (by any tenant: LOOKUP_TAKEN; by this one: uq_deeplinks_code).
        if (
          isUniqueViolation(error, LOOKUP_TAKEN) ||
          isUniqueViolation(error, 'uq_deeplinks_code')
        ) {
          continue;
        }
        if (!isUniqueViolation(error, 'uq_deeplinks_promo_code')) throw error;
        // The code is another link's, or this very link's made a moment ago by the same call.
        const same = await this.links.findSame(link);
        if (same) return this.toResponse(same, true);
        throw new PromoCodeTakenError(link.promoCode);
      }
      const existing = await this.links.findSame(link);
      if (existing) return this.toResponse(existing, true);
    }
    throw new Error('Could not allocate a short-link code');
  }

  /** Counts the click and says where the link leads; undefined for an unknown code. */
  async follow(code: string): Promise<LinkDestination | undefined> {
    const cached = this.followCached(code);
    if (cached) return cached;
    const loaded = await this.load(code);
    return loaded && this.clicked(loaded);
  }

  /**
   * Where a link already in memory leads, its click counted; undefined when it is not (then
   * `follow` reads it). Synchronous: a followed link's redirect waits for nothing.
   */
  followCached(code: string): LinkDestination | undefined {
    const destination = this.destinations.get(code);
    return destination && this.clicked(destination);
  }

  /** Drops a member's links from this process's memory (banned or unbanned: docs/fraud.md). */
  forgetMember(tenantId: string, memberId: string): void {
    this.destinations.deleteWhere(
      (d) => d.link.tenantId === tenantId && d.link.memberId === memberId,
    );
  }

  /** The click counted (a disabled link's is not) and the redirect's ref stamped with its time. */
  private clicked(destination: CachedDestination): LinkDestination {
    if (destination.kind === 'disabled') return destination;
    this.clicks.record(destination.link);
    if (destination.kind !== 'redirect') return destination;
    // A ref is URL-safe as it is (signed-ref.ts).
    const location = destination.before + destination.ref(Date.now()) + destination.after;
    return { kind: 'redirect', link: destination.link, location };
  }

  private async load(code: string): Promise<CachedDestination | undefined> {
    const found = await this.links.findByCodeWithTenant(code);
    if (!found) return undefined;
    const { link, tenant, banned } = found;
    delete link.tenant; // the destination keeps what it needs, not the entity graph
    let destination: CachedDestination = { kind: 'landing', link, tenant };
    const target =
      link.targetType === 'website'
        ? link.targetId
        : tenant.linkTemplates[link.targetType] &&
          fillLinkTemplate(tenant.linkTemplates[link.targetType], link.targetId);
    if (banned) destination = { kind: 'disabled', link };
    else if (target) {
      const [before, after] = locationAround(target);
      const ref = clickRefSigner(refClaimsOf(link), this.config.refSigningSecret);
      destination = { kind: 'redirect', link, before, after, ref };
    }
    this.destinations.set(code, destination);
    return destination;
  }

  byCode(code: string): Promise<DeeplinkEntity | null> {
    return this.links.findByCode(code);
  }

  /**
   * The referrer named by a signed ref of this tenant, or 422 `invalid_ref`; a click-stamped ref
   * older than the tenant's attribution window is 422 `ref_expired` (docs/fraud.md).
   */
  verifyRef(ref: string, tenant: TenantEntity): RefClaims {
    const claims = verifyRef(ref, this.config.refSigningSecret, tenant.id);
    if (!claims) throw new InvalidRefError();
    if (isRefExpired(claims, tenant.attributionWindowDays)) throw new RefExpiredError();
    return claims;
  }

  /** The link that holds this promo code in the tenant, whatever its case. */
  byPromoCode(tenantId: string, promoCode: string): Promise<DeeplinkEntity | null> {
    return this.links.findByPromoCode(tenantId, promoCode);
  }

  /** The partner's own links, newest first, with their clicks (the link widget lists them). */
  async linksOf(tenant: TenantEntity, memberId: string): Promise<ReferralLinkListResponse> {
    const links = await this.links.ofMember(tenant.id, memberId, MAX_LISTED_LINKS);
    return {
      items: links.map((link) => ({
        deeplink_id: link.id,
        code: link.code,
        short_url: this.shortUrl(link),
        target_type: link.targetType,
        target_id: link.targetId,
        promo_code: link.promoCode || null,
        recommendation_text: link.recommendationText || null,
        clicks_count: link.clicksCount,
        created_at: link.createdAt.toISOString(),
      })),
    };
  }

  private shortUrl(link: DeeplinkEntity): string {
    return `${this.config.shortLinkBaseUrl}/${link.code}`;
  }

  private toResponse(link: DeeplinkEntity, reused: boolean): ReferralLinkResponse {
    return {
      short_url: this.shortUrl(link),
      signed_ref: signRef(refClaimsOf(link), this.config.refSigningSecret),
      deeplink_id: link.id,
      code: link.code,
      reused,
    };
  }
}

/** What a link's refs name: the tenant, the referrer and the link (signed-ref.ts). */
function refClaimsOf(link: DeeplinkEntity): Omit<RefClaims, 'c'> {
  return { t: link.tenantId, r: link.serviceUserId, d: link.id };
}

/**
 * The target with `ref=` added, as `Location` carries it, split where the ref goes: `before` + ref
 * + `after` is the redirect's `Location`. Encoded once a link, not once a click: a ref is URL-safe
 * (signed-ref.ts) and needs no encoding between them.
 */
export function locationAround(target: string): [before: string, after: string] {
  const [before, after] = withRef(target, REF_SLOT).split(REF_SLOT);
  return [encodeLocation(before), encodeLocation(after)];
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
