import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppConfig } from '../config/app-config';
import { ModuleRef } from '@nestjs/core';
import { TransactionHost } from '../database/transaction-host';
import { DeeplinksService } from '../deeplinks/deeplinks.service';
import type { MemberEntity } from '../members/member.entity';
import { MembersService } from '../members/members.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import { DemoBuilder } from './demo-builder.service';
import {
  DEMO_ACTOR,
  DEMO_LEADS,
  DEMO_MEMBERS,
  DEMO_NEWCOMER,
  DEMO_OFFER,
  DEMO_PARTNER,
  DEMO_PROMO_CODE,
  DEMO_SLUG,
  demoEmail,
} from './demo-data';
import { DemoRepository } from './demo.repository';

/** What the demo page (and a test) needs to know about the seeded demo tenant. */
export interface DemoInfo {
  slug: string;
  tenantId: string;
  displayName: string;
  /** `<PUBLIC_BASE_URL>/demo`. */
  url: string;
  partner: { memberId: string; serviceUserId: string; email: string; name: string };
  /** A member with no downline and no leads (empty states). */
  newcomerMemberId: string;
  /** The partner's seeded short link (an offer link that leads back to /demo with a ref). */
  shortUrl: string | null;
}

/**
 * The demo tenant (README.md): when it is seeded (the first start of a development server with an
 * empty database, or `npm run cli -- demo:seed`), once across processes, and kept working when the
 * service moves; `DemoBuilder` writes it. The tenant allows the service's own origin, which
 * `/demo` is served from.
 */
@Injectable()
export class DemoSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('Demo');
  private readonly base: string;
  private readonly ownOrigin: string;

  constructor(
    private readonly config: AppConfig,
    private readonly tx: TransactionHost,
    private readonly demo: DemoRepository,
    private readonly tenants: TenantsService,
    private readonly members: MembersService,
    private readonly builder: DemoBuilder,
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
  ) {
    this.base = config.publicBaseUrl.replace(/\/+$/, '');
    this.ownOrigin = new URL(config.publicBaseUrl).origin;
  }

  /**
   * A development HTTP server seeds the demo into an empty database and prints its URL. Never in
   * production (no DemoModule there) or under tests (they seed explicitly), nor in a worker or the
   * CLI (no HTTP server; `demo:seed` seeds explicitly).
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.config.isProduction || this.config.nodeEnv === 'test') return;
    if (!this.adapterHost.httpAdapter) return;
    try {
      const demo = await this.seedIfEmpty();
      if (demo) this.logger.log(`Demo: ${demo.url}`);
    } catch (error) {
      this.logger.error(
        { err: error },
        'Seeding the demo tenant failed; the service runs without it',
      );
    }
  }

  /** Seeds the demo when the database has no tenant; refreshes an existing demo; else nothing. */
  seedIfEmpty(): Promise<DemoInfo | null> {
    return this.locked(async () => {
      if (!(await this.tenants.any())) return this.seed();
      const found = await this.find();
      return found ? this.refresh(found.tenant, found.partner) : null;
    });
  }

  /** The demo tenant, seeded now if it does not exist yet (whatever else the database holds). */
  ensureDemo(): Promise<DemoInfo> {
    return this.locked(async () => {
      const found = await this.find();
      if (found) return this.refresh(found.tenant, found.partner);
      if (await this.tenants.tenantBySlug(DEMO_SLUG)) {
        throw new Error(`A tenant "${DEMO_SLUG}" exists that the demo seeder did not create`);
      }
      return this.seed();
    });
  }

  /** The seeded demo as it is now, or null (read only). */
  async current(): Promise<DemoInfo | null> {
    const found = await this.find();
    return found ? this.infoOf(found.tenant, found.partner) : null;
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return this.tx.transaction(async () => {
      await this.demo.lock();
      return fn();
    });
  }

  /** Tenant `demo` with the demo partner in it (a tenant merely named demo is not the demo). */
  private async find(): Promise<{ tenant: TenantEntity; partner: MemberEntity } | null> {
    const tenant = await this.tenants.tenantBySlug(DEMO_SLUG);
    if (!tenant) return null;
    const partner = await this.member(tenant.id, DEMO_PARTNER);
    return partner ? { tenant, partner } : null;
  }

  /** A seeded member, by the email the demo gave it (and its external id, to be sure). */
  private async member(tenantId: string, externalId: string): Promise<MemberEntity | null> {
    const member = await this.members.findByEmail(tenantId, demoEmail(externalId));
    return member?.externalId === externalId ? member : null;
  }

  /**
   * Keeps the demo working when the service moved (another PORT or PUBLIC_BASE_URL): this
   * instance's origin is allowed, and the shared link leads to this instance's /demo unless the
   * instance it leads to now still answers. A second instance on another port, sharing the
   * database, must not take the first one's link away from it.
   */
  private async refresh(tenant: TenantEntity, partner: MemberEntity): Promise<DemoInfo> {
    const template = `${this.base}/demo?offer={id}`;
    const current = tenant.linkTemplates.offer;
    const moveLink = current !== template && !(current && (await answers(current)));
    if (!tenant.allowedOrigins.includes(this.ownOrigin) || moveLink) {
      await this.tenants.update(
        tenant,
        {
          allowed_origins: [...new Set([...tenant.allowedOrigins, this.ownOrigin])],
          ...(moveLink ? { link_templates: { ...tenant.linkTemplates, offer: template } } : {}),
        },
        DEMO_ACTOR,
      );
      this.logger.log(`The demo tenant now allows ${this.ownOrigin}`);
    }
    return this.infoOf((await this.tenants.tenantBySlug(DEMO_SLUG))!, partner);
  }

  private async infoOf(tenant: TenantEntity, partner: MemberEntity): Promise<DemoInfo> {
    const newcomer = await this.member(tenant.id, DEMO_NEWCOMER);
    // The partner's seeded link, by its promo code (unique in the tenant).
    const deeplinks = this.moduleRef.get(DeeplinksService, { strict: false });
    const found = await deeplinks.byPromoCode(tenant.id, DEMO_PROMO_CODE);
    const link =
      found?.memberId === partner.id &&
      found.targetType === 'offer' &&
      found.targetId === DEMO_OFFER
        ? found
        : null;
    return {
      slug: tenant.slug,
      tenantId: tenant.id,
      displayName: tenant.displayName,
      url: `${this.base}/demo`,
      partner: {
        memberId: partner.id,
        serviceUserId: partner.serviceUserId,
        email: partner.email ?? '',
        name: partner.fullName ?? '',
      },
      newcomerMemberId: newcomer?.id ?? partner.id,
      shortUrl: link ? `${this.config.shortLinkBaseUrl}/${link.code}` : null,
    };
  }

  /** Creates the whole demo; runs inside `locked`'s transaction, so it lands whole or not at all. */
  private async seed(): Promise<DemoInfo> {
    const started = Date.now();
    const tenant = await this.builder.build();
    const info = await this.infoOf(tenant, (await this.member(tenant.id, DEMO_PARTNER))!);
    this.logger.log(
      `Seeded the demo tenant "${DEMO_SLUG}" (${DEMO_MEMBERS.length} members, ` +
        `${DEMO_LEADS.length} leads) in ${Date.now() - started} ms`,
    );
    return info;
  }
}

/** Whether the service at the origin of `template` answers its liveness check within 1 s. */
async function answers(template: string): Promise<boolean> {
  try {
    const live = new URL('/health/live', new URL(template.replace('{id}', 'x')).origin);
    const res = await fetch(live, { signal: AbortSignal.timeout(1000) });
    return res.ok;
  } catch {
    return false;
  }
}
