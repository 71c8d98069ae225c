import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { BonusEntity, BonusSourceType } from '../bonuses/bonus.entity';
import { BonusesService } from '../bonuses/bonuses.service';
import { AppConfig } from '../config/app-config';
import { ConversionsService } from '../conversions/conversions.service';
import { DeeplinksService } from '../deeplinks/deeplinks.service';
import { GroupsService } from '../groups/groups.service';
import { LeadsService } from '../leads/leads.service';
import type { TenantEntity } from '../tenants/tenant.entity';
import { TenantsService } from '../tenants/tenants.service';
import { MembersService } from '../members/members.service';
import {
  DEMO_ACTOR,
  DEMO_DISPLAY_NAME,
  DEMO_INACTIVE,
  DEMO_LEADS,
  DEMO_MEMBERS,
  DEMO_OFFER,
  DEMO_ORDER_AMOUNTS,
  DEMO_PARTNER,
  DEMO_PROGRAM,
  DEMO_PROMO_CODE,
  DEMO_SLUG,
  demoContact,
  demoEmail,
} from './demo-data';
import { DemoRepository } from './demo.repository';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/**
 * Writes the demo tenant (README.md) (`DemoSeeder` decides when, and locks): a network of a few
 * dozen members, leads in every status, conversions with their cascades, bonuses pending,
 * approved, rejected and reversed, a short link with clicks. All of it goes through the same
 * services as the API (so the same rules, events and audit entries); only the timestamps are
 * spread over the past months afterwards, by the demo's own repository, so that the widgets look
 * lived in.
 */
@Injectable()
export class DemoBuilder {
  private readonly base: string;
  private readonly ownOrigin: string;

  constructor(
    config: AppConfig,
    private readonly demo: DemoRepository,
    private readonly tenants: TenantsService,
    private readonly members: MembersService,
    private readonly leads: LeadsService,
    private readonly bonuses: BonusesService,
    private readonly groups: GroupsService,
    private readonly moduleRef: ModuleRef,
  ) {
    this.base = config.publicBaseUrl.replace(/\/+$/, '');
    this.ownOrigin = new URL(config.publicBaseUrl).origin;
  }

  /** Creates the whole demo tenant; the caller's transaction makes it land whole or not at all. */
  async build(): Promise<TenantEntity> {
    const now = Date.now();
    const created = await this.tenants.create(
      {
        slug: DEMO_SLUG,
        display_name: DEMO_DISPLAY_NAME,
        allowed_origins: [this.ownOrigin],
        currency: 'RUB',
        locale: 'ru-RU',
        link_templates: { offer: `${this.base}/demo?offer={id}` },
        program: DEMO_PROGRAM,
      },
      DEMO_ACTOR,
    );
    const tenant = (await this.tenants.tenantBySlug(created.slug))!;
    await this.openApplications(tenant);
    const times = new Map<string, Date>();

    // Members: joined over ~200 days, each after its referrer.
    const members = new Map<string, { memberId: string; serviceUserId: string }>();
    DEMO_MEMBERS.forEach(([externalId], index) =>
      times.set(externalId, new Date(now - (200 - index * 4.4) * DAY_MS)),
    );
    for (const [externalId, fullName, referrer] of DEMO_MEMBERS) {
      const result = await this.members.upsert(tenant.id, {
        external_id: externalId,
        full_name: fullName,
        email: demoEmail(externalId),
        email_verified: false,
        ...(referrer ? { referrer_user_id: members.get(referrer)!.serviceUserId } : {}),
      });
      members.set(externalId, {
        memberId: result.tenant_service_id,
        serviceUserId: result.service_user_id,
      });
    }
    const anna = members.get(DEMO_PARTNER)!;
    await this.members.setActive(
      tenant.id,
      members.get(DEMO_INACTIVE)!.memberId,
      false,
      DEMO_ACTOR,
    );

    // A welcome bonus, by hand, long ago.
    const welcome = await this.bonuses.createManual(
      tenant,
      {
        user_id: anna.serviceUserId,
        amount_kopecks: 50_000,
        currency: 'RUB',
        reason: 'Приветственный бонус',
      },
      DEMO_ACTOR,
    );
    times.set(welcome.source_id, new Date(now - 120 * DAY_MS));
    // Whatever made a bonus, in the order it happened.
    const sources: [BonusSourceType, string][] = [['manual', welcome.source_id]];

    // Leads over the last ~58 days, oldest first; then what became of each.
    const conversions = this.moduleRef.get(ConversionsService, { strict: false });
    const span = 58 * DAY_MS - 3 * HOUR_MS;
    let order = 0;
    let refunded: string | undefined;
    for (const [index, [referrer, name, fate]] of DEMO_LEADS.entries()) {
      const at = now - 58 * DAY_MS + (index * span) / (DEMO_LEADS.length - 1);
      const lead = await this.leads.create(
        tenant,
        {
          referrer_user_id: members.get(referrer)!.serviceUserId,
          contact: demoContact(index, name),
          metadata: { utm_source: index % 2 ? 'telegram' : 'instagram' },
        },
        'federation',
      );
      times.set(lead.lead_id, new Date(at));
      sources.push(['lead', lead.lead_id]);
      if (fate === 'processed' || fate === 'rejected') {
        await this.leads.changeStatus(tenant.id, lead.lead_id, {
          status: fate,
          ...(fate === 'rejected' ? { reason: 'Клиент не отвечает' } : {}),
        });
      }
      if (fate === 'converted' || fate === 'refunded') {
        const conversion = await conversions.register(tenant, {
          lead_id: lead.lead_id,
          amount_kopecks: DEMO_ORDER_AMOUNTS[order % DEMO_ORDER_AMOUNTS.length],
          currency: 'RUB',
          external_order_id: `demo-order-${1001 + order}`,
        });
        order++;
        times.set(conversion.conversion_id, new Date(Math.min(at + 1.5 * DAY_MS, now - HOUR_MS)));
        sources.push(['conversion', conversion.conversion_id]);
        if (fate === 'refunded') refunded = conversion.conversion_id;
      }
    }

    // Bonuses: the older ones settled by staff (most approved, a few rejected), the newest
    // still pending; then one order refunded, which writes its bonuses off.
    const pending = await this.pendingOf(tenant.id, sources);
    const settled = Math.floor(pending.length * 0.65);
    for (const [index, { id }] of pending.slice(0, settled).entries()) {
      if (index % 9 === 4) {
        await this.bonuses.reject(tenant.id, id, 'Заказ оплачен не полностью', DEMO_ACTOR);
      } else {
        await this.bonuses.approve(tenant.id, id, DEMO_ACTOR);
      }
    }
    if (refunded) await conversions.reverse(tenant.id, refunded, 'Возврат товара');

    // The partner's short link for the spring offer, clicked a few times.
    const deeplinks = this.moduleRef.get(DeeplinksService, { strict: false });
    const link = await deeplinks.createOrReuse(tenant, anna.memberId, {
      target_type: 'offer',
      target_id: DEMO_OFFER,
      recommendation_text: 'Весенняя распродажа — скидка 10 % по моему промокоду',
      promo_code: DEMO_PROMO_CODE,
    });
    for (let i = 0; i < 17; i++) await deeplinks.follow(link.code);
    // Clicks are written in batches: the demo shows them from its first view.
    await deeplinks.flushClicks();
    times.set(link.deeplink_id, new Date(now - 90 * DAY_MS));

    await this.spreadTimestamps(tenant, members, times);
    return tenant;
  }

  /** The pending bonuses of these sources, oldest first (then by id, as the sweep would go). */
  /**
   * The default group takes applications (docs/partners.md, "Applications"), so the demo's join
   * page `/p/demo/join` works: two questions, staff approve.
   */
  private async openApplications(tenant: TenantEntity): Promise<void> {
    const { items } = await this.groups.list(tenant.id, { page: 1, page_size: 100 });
    const group = items.find((g) => g.slug === 'default')!;
    await this.groups.update(
      tenant.id,
      group.group_id,
      {
        signup: {
          enabled: true,
          auto_approve: false,
          fields: [
            { name: 'site', label: 'Your site or channel', type: 'url', required: true },
            { name: 'audience', label: 'About your audience', type: 'textarea', required: false },
          ],
        },
      },
      DEMO_ACTOR,
    );
  }

  private async pendingOf(
    tenantId: string,
    sources: [BonusSourceType, string][],
  ): Promise<BonusEntity[]> {
    const bonuses: BonusEntity[] = [];
    for (const [type, id] of sources) {
      bonuses.push(...(await this.bonuses.bonusesOfSource(tenantId, type, id)));
    }
    return bonuses
      .filter((bonus) => bonus.status === 'pending')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  /**
   * Moves the seeded rows' timestamps into the past in the order they happened (members by join
   * date, leads, conversions and their bonuses), keeping every pending bonus's due date ahead so
   * the grace sweep does not settle the demo at once (DemoRepository.moveIntoPast).
   */
  private spreadTimestamps(
    tenant: TenantEntity,
    members: Map<string, { memberId: string }>,
    times: Map<string, Date>,
  ): Promise<void> {
    // Leads, conversions and links by their ids; bonuses by their sources' ids.
    const others = [...times].filter(([key]) => !members.has(key)).map(([id, at]) => ({ id, at }));
    return this.demo.moveIntoPast(
      tenant.id,
      [...members].map(([key, { memberId }]) => ({ id: memberId, at: times.get(key)! })),
      others,
      DEMO_PROGRAM.grace_period_hours,
    );
  }
}
