import { Injectable } from '@nestjs/common';
import { insertable } from '../database/columns';
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
}
