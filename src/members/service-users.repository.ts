import { Injectable } from '@nestjs/common';
import { TransactionHost } from '../database/transaction-host';
import { ServiceUserEntity } from './service-user.entity';

@Injectable()
export class ServiceUsersRepository {
  constructor(private readonly tx: TransactionHost) {}

  private get repo() {
    return this.tx.manager.getRepository(ServiceUserEntity);
  }

  findByVkId(vkId: string): Promise<ServiceUserEntity | null> {
    return this.repo.findOneBy({ vkId });
  }

  findByVerifiedEmail(email: string): Promise<ServiceUserEntity | null> {
    return this.repo.findOneBy({ verifiedEmail: email.toLowerCase() });
  }

  /** Inserts unless the vk_id or verified email was claimed meanwhile; `false` then. */
  async insertIfUnclaimed(user: ServiceUserEntity): Promise<boolean> {
    const rows: unknown[] = await this.tx.manager.query(
      `INSERT INTO service_users (id, vk_id, verified_email, created_at)
       VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id`,
      [user.id, user.vkId, user.verifiedEmail, user.createdAt],
    );
    return rows.length === 1;
  }

  /** docs/privacy.md: the person's email and VK id forgotten (no member stands on them any more). */
  async forget(id: string): Promise<void> {
    await this.tx.manager.query(
      `UPDATE service_users SET verified_email = NULL, vk_id = NULL WHERE id = $1`,
      [id],
    );
  }
}
