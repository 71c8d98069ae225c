import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EntityRows } from '../database/entity-rows';
import { TransactionHost } from '../database/transaction-host';
import { ConversionEntity } from './conversion.entity';

@Injectable()
export class ConversionsRepository {
  private readonly rows: EntityRows<ConversionEntity>;

  constructor(
    private readonly tx: TransactionHost,
    dataSource: DataSource,
  ) {
    this.rows = new EntityRows(dataSource, ConversionEntity);
  }

  private get repo() {
    return this.tx.manager.getRepository(ConversionEntity);
  }

  find(tenantId: string, conversionId: string): Promise<ConversionEntity | null> {
    return this.repo.findOneBy({ tenantId, id: conversionId });
  }

  /** The `reward_note` of each of these conversions that has one. */
  rewardNotes(tenantId: string, ids: string[]): Promise<{ id: string; reward_note: string }[]> {
    return this.tx.select(
      `SELECT id, reward_note FROM conversions
        WHERE tenant_id = $1 AND id = ANY($2::text[]) AND reward_note IS NOT NULL`,
      [tenantId, ids],
    );
  }

  /** The tenant's conversion of this order, if any (register's hot path: constant SQL). */
  async findByExternalOrderId(
    tenantId: string,
    externalOrderId: string,
  ): Promise<ConversionEntity | null> {
    const [row] = await this.tx.select(
      `SELECT ${this.rows.select('c')} FROM conversions c
        WHERE c.tenant_id = $1 AND c.external_order_id = $2`,
      [tenantId, externalOrderId],
    );
    return row ? this.rows.from(row) : null;
  }

  /**
   * When the lead's conversions were registered, oldest first, reversed ones included (the phase
   * of the next one depends on them, docs/money.md §2).
   */
  async registrationTimes(tenantId: string, leadId: string): Promise<Date[]> {
    const rows = await this.tx.select<{ created_at: Date }>(
      `SELECT created_at FROM conversions WHERE tenant_id = $1 AND lead_id = $2
        ORDER BY created_at, id`,
      [tenantId, leadId],
    );
    return rows.map((row) => row.created_at);
  }

  /** Serialises registrations of one order in the tenant until the transaction ends. */
  async lockOrder(tenantId: string, externalOrderId: string): Promise<void> {
    await this.tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `order:${tenantId}:${externalOrderId}`,
    ]);
  }

  /** Inserts unless the tenant already has this order (a concurrent register won); `false` then. */
  async insertIfNew(conversion: ConversionEntity): Promise<boolean> {
    const { sql, params } = this.rows.insert([conversion]);
    const inserted: unknown[] = await this.tx.manager.query(
      `${sql} ON CONFLICT ON CONSTRAINT uq_conversions_external_order_id DO NOTHING RETURNING id`,
      params,
    );
    return inserted.length === 1;
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
