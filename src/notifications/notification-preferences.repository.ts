import { Injectable } from '@nestjs/common';
import { PersonalData, type ErasedMember } from '../common/privacy/personal-data.decorator';
import { TransactionHost } from '../database/transaction-host';
import type { NotificationMode, NotificationType } from './notification-preference.entity';

/** The members' notification preferences; every method takes the tenant id first. */
@Injectable()
export class NotificationPreferencesRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** The modes this member has set (types without a row are left out). */
  async of(
    tenantId: string,
    memberId: string,
  ): Promise<{ type: NotificationType; mode: NotificationMode }[]> {
    return this.tx.select(
      `SELECT type, mode FROM notification_preferences WHERE tenant_id = $1 AND member_id = $2`,
      [tenantId, memberId],
    );
  }

  /** Sets these modes in one statement (the others stay as they are). */
  async set(
    tenantId: string,
    memberId: string,
    modes: [NotificationType, NotificationMode][],
  ): Promise<void> {
    if (!modes.length) return;
    await this.tx.manager.query(
      `INSERT INTO notification_preferences (tenant_id, member_id, type, mode, updated_at)
       SELECT $1, $2, t.type, t.mode, now()
         FROM unnest($3::text[], $4::text[]) AS t(type, mode)
        ORDER BY t.type
       ON CONFLICT (tenant_id, member_id, type)
         DO UPDATE SET mode = EXCLUDED.mode, updated_at = EXCLUDED.updated_at`,
      [tenantId, memberId, modes.map((m) => m[0]), modes.map((m) => m[1])],
    );
  }

  /** docs/privacy.md: the erased member's preferences, deleted. */
  @PersonalData('member', 'notification_preferences')
  async erasePersonal(member: ErasedMember): Promise<string[]> {
    await this.tx.manager.query(
      `DELETE FROM notification_preferences WHERE tenant_id = $1 AND member_id = $2`,
      [member.tenantId, member.memberId],
    );
    return [];
  }
}
