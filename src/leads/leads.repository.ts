import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { insertable } from '../database/columns';
import { TransactionHost } from '../database/transaction-host';
import { LeadEntity, type LeadStatus } from './lead.entity';

@Injectable()
export class LeadsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(LeadEntity);
  }

  async insert(lead: LeadEntity): Promise<void> {
    await this.repo.insert(insertable(lead));
  }

  find(tenantId: string, leadId: string): Promise<LeadEntity | null> {
    return this.repo.findOneBy({ tenantId, id: leadId });
  }

  /** A referrer's leads, newest first, optionally of one status. */
  forReferrer(
    tenantId: string,
    referrerMemberId: string,
    status: LeadStatus | undefined,
    offset: number,
    limit: number,
  ): Promise<[LeadEntity[], number]> {
    return this.repo.findAndCount({
      where: { tenantId, referrerMemberId, ...(status ? { status } : {}) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
  }

  /** The newest `limit` leads of a referrer, without counting them. */
  recentForReferrer(
    tenantId: string,
    referrerMemberId: string,
    limit: number,
  ): Promise<LeadEntity[]> {
    return this.repo.find({
      where: { tenantId, referrerMemberId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }

  /** Locks the lead for the rest of the transaction (conversions of one lead go one at a time). */
  lock(tenantId: string, leadId: string): Promise<LeadEntity | null> {
    return this.repo.findOne({
      where: { tenantId, id: leadId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Moves the lead to `to` only from one of `from`; `false` when it was in another status. */
  async transition(
    tenantId: string,
    leadId: string,
    from: LeadStatus[],
    to: LeadStatus,
    reason: string | null,
  ): Promise<boolean> {
    if (!from.length) return false;
    const result = await this.repo.update(
      { tenantId, id: leadId, status: In(from) },
      { status: to, statusReason: reason, updatedAt: () => 'now()' },
    );
    return (result.affected ?? 0) > 0;
  }
}
