import { Injectable } from '@nestjs/common';
import { PersonalData, type ErasedMember } from '../../common/privacy/personal-data.decorator';
import { redactColumns } from '../../database/redaction';
import { TransactionHost } from '../../database/transaction-host';

/**
 * Partner mail's part in docs/privacy.md: an erased member's mail (the delivery log, the items
 * waiting for a digest) and the suppressions of their addresses deleted; erased values copied into
 * other mail (a referral's name in an upline's commission mail) replaced.
 */
@Injectable()
export class MailPrivacyRepository {
  constructor(private readonly tx: TransactionHost) {}

  @PersonalData('member', 'partner_mail')
  async erasePersonal(member: ErasedMember): Promise<string[]> {
    const params = [member.tenantId, member.memberId];
    const [sent]: [{ to_address: string }[], number] = await this.tx.manager.query(
      `DELETE FROM notifications WHERE tenant_id = $1 AND member_id = $2 RETURNING to_address`,
      params,
    );
    await this.tx.manager.query(
      `DELETE FROM notification_items WHERE tenant_id = $1 AND member_id = $2`,
      params,
    );
    const addresses = [...new Set(sent.map((row) => row.to_address))];
    if (addresses.length) {
      await this.tx.manager.query(
        `DELETE FROM mail_suppressions WHERE tenant_id = $1 AND lower(email) = ANY($2::text[])`,
        [member.tenantId, addresses.map((a) => a.toLowerCase())],
      );
    }
    return addresses;
  }

  /** docs/privacy.md: erased values copied into the texts of other members' mail, replaced. */
  @PersonalData('redact', 'partner_mail')
  async redactPersonal(tenantId: string, values: string[]): Promise<number> {
    const log = await redactColumns(this.tx.manager, tenantId, values, {
      table: 'notifications',
      key: ['tenant_id', 'id'],
      columns: { data: 'jsonb', last_error: 'text', subject: 'text' },
    });
    const items = await redactColumns(this.tx.manager, tenantId, values, {
      table: 'notification_items',
      key: ['tenant_id', 'source_id', 'member_id', 'type'],
      columns: { data: 'jsonb' },
    });
    const suppressions = await redactColumns(this.tx.manager, tenantId, values, {
      table: 'mail_suppressions',
      key: ['tenant_id', 'email'],
      columns: { reason: 'text' },
    });
    return log + items + suppressions;
  }
}
