import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import type { AuditActor } from '../common/access/actor';
import { NotFoundError } from '../common/errors/domain-error';
import { offsetOf, pagination } from '../common/http/pagination.dto';
import { MembersService } from '../members/members.service';
import type {
  NotificationListResponse,
  NotificationLogQueryDto,
  NotificationResponse,
} from './dto/notification-log.dto';
import { renderMail, type RenderedMail } from './mail/mail-render';
import { LOG_TYPES } from './dto/notification-log.dto';
import type { TenantEntity } from '../tenants/tenant.entity';
import { MailSender } from './mail/mail-sender';
import {
  NotificationLogRepository,
  type NotificationRow,
} from './mail/notification-log.repository';

/** The staff's side of partner mail (docs/notifications.md, "Delivery log"). */
@Injectable()
export class NotificationLogService {
  constructor(
    private readonly log: NotificationLogRepository,
    private readonly members: MembersService,
    private readonly sender: MailSender,
    private readonly audit: AuditService,
  ) {}

  async list(tenantId: string, query: NotificationLogQueryDto): Promise<NotificationListResponse> {
    let memberId: string | undefined;
    if (query.user_id !== undefined) {
      const member = await this.members.findMember(tenantId, query.user_id);
      if (!member) return { items: [], pagination: pagination(query, 0) };
      memberId = member.id;
    }
    const { rows, total } = await this.log.list(
      tenantId,
      { memberId, status: query.status, type: query.type },
      { limit: query.page_size, offset: offsetOf(query) },
    );
    return { items: rows.map(toResponse), pagination: pagination(query, total) };
  }

  /** Queues the mail again at once, with the same Message-ID (audited). */
  async resend(tenantId: string, id: string, actor: AuditActor): Promise<NotificationResponse> {
    const row = await this.log.find(tenantId, id);
    if (!row) throw new NotFoundError('notification_not_found', 'No such notification.');
    await this.log.requeue(tenantId, id);
    await this.audit.record(tenantId, actor, 'notification.resent', {
      type: 'notification',
      id,
    });
    return toResponse((await this.log.find(tenantId, id))!);
  }

  /** Every type's mail with sample data, in the tenant's language and branding (the console). */
  previews(tenant: TenantEntity): { type: string; mail: RenderedMail }[] {
    return previews(tenant);
  }

  /** Writes every digest with something in it now; they go out with the next pass. */
  async digestsNow(tenantId: string): Promise<{ digests: number }> {
    return { digests: await this.sender.makeDigests({ tenantId }) };
  }

  /** Lets mail reach an address again (audited); 404 if it was not suppressed. */
  async unsuppress(tenantId: string, email: string, actor: AuditActor): Promise<void> {
    if (!(await this.log.unsuppress(tenantId, email)))
      throw new NotFoundError('suppression_not_found', 'This address is not suppressed.');
    await this.audit.record(tenantId, actor, 'notification.unsuppressed', {
      type: 'email',
      id: email.toLowerCase(),
    });
  }
}

/** What each type shows in the preview: a partner's name and amounts of the tenant's currency. */
const SAMPLE: Record<string, unknown> = {
  name: 'Anna Petrova',
  amount_kopecks: 123_456,
  lead_name: 'Ivan Sidorov',
  member_name: 'Boris Smirnov',
  bounty_name: '10 sales in December',
  reference: 'PAY-2026-0042',
  reason: 'The website is not about our products.',
};

/** Every type's mail with sample data, in the tenant's language and branding (the console). */
function previews(tenant: TenantEntity): { type: string; mail: RenderedMail }[] {
  return LOG_TYPES.map((type) => ({
    type,
    mail: renderMail(tenant, {
      type,
      data: SAMPLE,
      items:
        type === 'digest'
          ? [
              { type: 'bonus.pending', data: SAMPLE },
              { type: 'downline.joined', data: SAMPLE },
            ]
          : undefined,
      unsubscribeUrl: type === 'partner.rejected' ? null : 'https://…/notifications/unsubscribe',
    }),
  }));
}

export function toResponse(row: NotificationRow): NotificationResponse {
  return {
    notification_id: row.id,
    user_id: row.member_id,
    type: row.type,
    status: row.status,
    to: row.to_address,
    subject: row.subject,
    attempts: row.attempts,
    sent_at: row.sent_at?.toISOString() ?? null,
    last_error: row.last_error,
    message_id: row.message_id,
    created_at: row.created_at.toISOString(),
  };
}
