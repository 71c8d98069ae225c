import { Injectable } from '@nestjs/common';
import { MoreThan } from 'typeorm';
import { deleteInBatches } from '../database/batched-delete';
import { TransactionHost } from '../database/transaction-host';
import { AdminSessionEntity } from './admin-session.entity';

/** `admin_sessions`, by the hash of the cookie's token (AdminSessionsService holds the rules). */
@Injectable()
export class AdminSessionsRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(AdminSessionEntity);
  }

  async insert(session: AdminSessionEntity): Promise<void> {
    await this.repo.insert(session);
  }

  /** The session of this token hash, unless expired. */
  findLive(tokenHash: string): Promise<AdminSessionEntity | null> {
    return this.repo.findOneBy({ tokenHash, expiresAt: MoreThan(new Date()) });
  }

  async delete(tokenHash: string): Promise<void> {
    await this.repo.delete({ tokenHash });
  }

  /** Deletes the expired sessions in batches; how many went. */
  deleteExpired(): Promise<number> {
    return deleteInBatches(this.tx.manager, `admin_sessions`, `expires_at < now()`, `token_hash`);
  }
}
