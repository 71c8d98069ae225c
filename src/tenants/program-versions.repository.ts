import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { ProgramVersionEntity } from './program-version.entity';

@Injectable()
export class ProgramVersionsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(ProgramVersionEntity);
  }

  async insert(version: ProgramVersionEntity): Promise<void> {
    await this.repo.insert(version);
  }

  /** A page of the tenant's versions, newest first, and how many there are. */
  list(tenantId: string, offset: number, limit: number): Promise<[ProgramVersionEntity[], number]> {
    return this.repo.findAndCount({
      where: { tenantId },
      order: { effectiveAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }
}
