import { Injectable } from '@nestjs/common';
import { redactColumns } from '../database/redaction';
import { PersonalData } from '../common/privacy/personal-data.decorator';
import { TransactionHost } from '../database/transaction-host';
import type { TenantEntity } from '../tenants/tenant.entity';
import { claimLookupsFrom } from '../tenants/tenant-lookups';
import { DeeplinkEntity } from './deeplink.entity';

/** The claim of a new link's code, written by the statement that inserts the link (tenants' SQL). */
const CLAIM_CODE = claimLookupsFrom('short_code', 'link', 'code');

@Injectable()
export class DeeplinksRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(DeeplinkEntity);
  }

  /**
   * Inserts unless a link with the same six parameters exists (uq_deeplinks_params); `false` then.
   * The code is claimed in `tenant_lookups` by the same statement (the part tenants/ writes,
   * claimLookupsFrom): a code another link holds (of any tenant) raises 23505 on LOOKUP_TAKEN, and
   * nothing is written, for the caller to retry.
   */
  async insertIfNew(link: DeeplinkEntity): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `WITH link AS (
         INSERT INTO deeplinks (tenant_id, id, member_id, service_user_id, target_type, target_id,
                                recommendation_text, promo_code, code, clicks_count, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10)
         ON CONFLICT (tenant_id, member_id, target_type, target_id, recommendation_text, promo_code)
         DO NOTHING RETURNING tenant_id, code)
       ${CLAIM_CODE}`,
      [
        link.tenantId,
        link.id,
        link.memberId,
        link.serviceUserId,
        link.targetType,
        link.targetId,
        link.recommendationText,
        link.promoCode,
        link.code,
        link.createdAt,
      ],
    );
    return rows.length === 1;
  }

  /** A page of the member's links, newest first, and how many they have. */
  forMember(
    tenantId: string,
    memberId: string,
    offset: number,
    limit: number,
  ): Promise<[DeeplinkEntity[], number]> {
    return this.repo.findAndCount({
      where: { tenantId, memberId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  findSame(link: DeeplinkEntity): Promise<DeeplinkEntity | null> {
    return this.repo.findOneBy({
      tenantId: link.tenantId,
      memberId: link.memberId,
      targetType: link.targetType,
      targetId: link.targetId,
      recommendationText: link.recommendationText,
      promoCode: link.promoCode,
    });
  }

  findByCode(code: string): Promise<DeeplinkEntity | null> {
    return this.byCode(code).getOne();
  }

  /** The link of a code: its tenant from `tenant_lookups`, then the link by (tenant_id, code). */
  private byCode(code: string) {
    return this.repo
      .createQueryBuilder('d')
      .innerJoin(
        'tenant_lookups',
        'l',
        `l.kind = 'short_code' AND l.value = d.code AND l.tenant_id = d.tenant_id`,
      )
      .where('l.value = :code AND d.code = :code', { code });
  }

  /**
   * The link, its tenant and whether its partner is banned, in one round trip (the redirect's
   * path when the link is not in memory).
   */
  async findByCodeWithTenant(
    code: string,
  ): Promise<{ link: DeeplinkEntity; tenant: TenantEntity; banned: boolean } | undefined> {
    const link = await this.byCode(code)
      .innerJoinAndSelect('d.tenant', 'tenant')
      .leftJoinAndSelect('d.member', 'member')
      .getOne();
    if (!link?.tenant) return undefined;
    // docs/privacy.md: an erased partner's links stop as a banned one's do.
    const banned = Boolean(link.member?.bannedAt || link.member?.erasedAt);
    delete link.member;
    return { link, tenant: link.tenant, banned };
  }

  /** The tenant's link with this promo code, compared case-insensitively (uq_deeplinks_promo_code). */
  async findByPromoCode(tenantId: string, promoCode: string): Promise<DeeplinkEntity | null> {
    return this.repo
      .createQueryBuilder('d')
      .where(`d.tenant_id = :tenantId AND lower(d.promo_code) = lower(:promoCode)`, {
        tenantId,
        promoCode,
      })
      .andWhere(`d.promo_code <> ''`)
      .getOne();
  }

  /** Adds counted clicks to their links' clicks_count (ClickCounter's batch, in its order). */
  async addClicks(clicks: { tenantId: string; id: string; count: number }[]): Promise<void> {
    await this.tx.manager.query(
      `UPDATE deeplinks d SET clicks_count = d.clicks_count + c.n
         FROM unnest($1::text[], $2::text[], $3::int[]) AS c (tenant_id, link_id, n)
        WHERE d.tenant_id = c.tenant_id AND d.id = c.link_id`,
      [clicks.map((c) => c.tenantId), clicks.map((c) => c.id), clicks.map((c) => c.count)],
    );
  }

  /** docs/privacy.md: erased values inside links' texts (a recommendation naming someone). */
  @PersonalData('redact', 'deeplinks')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'deeplinks',
      key: ['tenant_id', 'id'],
      columns: { recommendation_text: 'text', promo_code: 'text' },
    });
  }

  /** docs/privacy.md: the member's links and the texts they carry. */
  @PersonalData('export', 'links')
  async exportPersonal(tenantId: string, memberId: string): Promise<Record<string, unknown>> {
    const links: unknown[] = await this.tx.manager.query(
      `SELECT id, code, target_type, target_id, recommendation_text, promo_code, created_at
         FROM deeplinks WHERE tenant_id = $1 AND member_id = $2 ORDER BY created_at`,
      [tenantId, memberId],
    );
    return { links };
  }
}
