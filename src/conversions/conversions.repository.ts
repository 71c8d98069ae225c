import { Injectable } from '@nestjs/common';
import { insertable } from '../database/columns';
import { TransactionHost } from '../database/transaction-host';
import { ConversionEntity } from './conversion.entity';

@Injectable()
export class ConversionsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(ConversionEntity);
  }

  find(tenantId: string, conversionId: string): Promise<ConversionEntity | null> {
    return this.repo.findOneBy({ tenantId, id: conversionId });
  }

  findByExternalOrderId(
    tenantId: string,
    externalOrderId: string,
  ): Promise<ConversionEntity | null> {
    return this.repo.findOneBy({ tenantId, externalOrderId });
  }

  /** Inserts unless the tenant already has this order (a concurrent register won); `false` then. */
  /** Serialises registrations of one order in the tenant until the transaction ends. */
  async lockOrder(tenantId: string, externalOrderId: string): Promise<void> {
    await this.tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `order:${tenantId}:${externalOrderId}`,
    ]);
  }

  async insertIfNew(conversion: ConversionEntity): Promise<boolean> {
    const result = await this.repo
      .createQueryBuilder()
      .insert()
      .values(insertable(conversion))
      .orIgnore('ON CONSTRAINT uq_conversions_external_order_id')
      .returning(['id'])
      .execute();
    return result.raw.length === 1;
  }

  /** Marks the conversion reversed once; `undefined` when it was not `registered`. */
  async reverse(
    tenantId: string,
    conversionId: string,
    reason: string,
  ): Promise<ConversionEntity | undefined> {
    const [rows]: [unknown[], number] = await this.tx.manager.query(
      `UPDATE conversions SET status = 'reversed', reversed_at = now(), reverse_reason = $3
        WHERE tenant_id = $1 AND id = $2 AND status = 'registered'
        RETURNING id`,
      [tenantId, conversionId, reason],
    );
    if (!rows.length) return undefined;
    return (await this.find(tenantId, conversionId)) ?? undefined;
  }
}
