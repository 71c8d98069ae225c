import { Injectable } from '@nestjs/common';
import { insertable } from '../database/columns';
import { PersonalData } from '../common/privacy/personal-data.decorator';
import { redactColumns } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import { AuditEntryEntity } from './audit-entry.entity';

@Injectable()
export class AuditRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(AuditEntryEntity);
  }

  async insert(entry: AuditEntryEntity): Promise<void> {
    await this.repo.insert(insertable(entry));
  }

  /** Newest first; ids are ULIDs, so `id` breaks ties within one millisecond in time order. */
  list(
    tenantId: string,
    filter: { action?: string },
    offset: number,
    limit: number,
  ): Promise<[AuditEntryEntity[], number]> {
    return this.repo.findAndCount({
      where: { tenantId, ...(filter.action ? { action: filter.action } : {}) },
      order: { at: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  /** docs/privacy.md: erased values copied into this table's texts, replaced. */
  @PersonalData('redact', 'audit_log')
  redactPersonal(tenantId: string, values: string[]): Promise<number> {
    return redactColumns(this.tx.manager, tenantId, values, {
      table: 'audit_log',
      key: ['tenant_id', 'id'],
      columns: { details: 'jsonb', actor_name: 'text' },
    });
  }
}
