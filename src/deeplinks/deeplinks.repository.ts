import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import type { TenantEntity } from '../tenants/tenant.entity';
import { DeeplinkEntity } from './deeplink.entity';

@Injectable()
export class DeeplinksRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(DeeplinkEntity);
  }

  /**
   * Inserts unless a link with the same six parameters exists (uq_deeplinks_params); `false` then.
   * A clash on the random code raises 23505 on uq_deeplinks_code for the caller to retry.
   */
  async insertIfNew(link: DeeplinkEntity): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `INSERT INTO deeplinks (tenant_id, id, member_id, service_user_id, target_type, target_id,
                                recommendation_text, promo_code, code, clicks_count, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10)
         ON CONFLICT (tenant_id, member_id, target_type, target_id, recommendation_text, promo_code)
         DO NOTHING RETURNING id`,
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
    return this.repo.findOneBy({ code });
  }

  /** The link and its tenant in one round trip (the redirect's hot path). */
  async findByCodeWithTenant(
    code: string,
  ): Promise<{ link: DeeplinkEntity; tenant: TenantEntity } | undefined> {
    const link = await this.repo.findOne({ where: { code }, relations: { tenant: true } });
    return link?.tenant ? { link, tenant: link.tenant } : undefined;
  }
}
