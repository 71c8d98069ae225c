import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { AuditService } from '../audit/audit.service';
import { BonusesService } from '../bonuses/bonuses.service';
import { TransactionHost } from '../database/transaction-host';
import { DeeplinksService } from '../deeplinks/deeplinks.service';
import { MemberNotFoundError } from '../members/member.errors';
import { MembersService } from '../members/members.service';
import type { BanResponse } from './dto/ban.dto';

export const BAN_REJECTION_REASON = 'partner_banned';

/**
 * Banning a partner (docs/fraud.md): one transaction deactivates the member (the cascade and the
 * lead bonus skip them from then on), rejects every pending bonus of theirs with reason
 * `partner_banned` (each emitting `bonus.rejected`) and records the audit entry; their short
 * links answer 410 `link_disabled`. Unbanning lifts the ban and activates the member again;
 * rejected bonuses stay rejected.
 */
@Injectable()
export class BansService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly members: MembersService,
    private readonly bonuses: BonusesService,
    private readonly links: DeeplinksService,
    private readonly audit: AuditService,
  ) {}

  async ban(tenantId: string, ref: string, reason: string, actor: Actor): Promise<BanResponse> {
    const answer = await this.tx.transaction(async () => {
      // Leads and conversions in flight finish first; their pending bonuses are rejected below.
      const member = await this.members.setBan(tenantId, ref, { reason });
      if (!member) throw new MemberNotFoundError(ref);
      const rejected = await this.bonuses.rejectPendingForMember(
        tenantId,
        member.id,
        BAN_REJECTION_REASON,
      );
      await this.audit.record(
        tenantId,
        actor,
        'user.banned',
        { type: 'user', id: member.id },
        { reason, rejected_bonuses: rejected.map((b) => b.id) },
      );
      return {
        user_id: member.id,
        service_user_id: member.serviceUserId,
        is_active: member.isActive,
        banned: true,
        banned_at: member.bannedAt!.toISOString(),
        ban_reason: reason,
        rejected_bonus_ids: rejected.map((b) => b.id),
      };
    });
    this.links.forgetMember(tenantId, answer.user_id);
    return answer;
  }

  async unban(tenantId: string, ref: string, actor: Actor): Promise<BanResponse> {
    const answer = await this.tx.transaction(async () => {
      const member = await this.members.setBan(tenantId, ref, null);
      if (!member) throw new MemberNotFoundError(ref);
      await this.audit.record(tenantId, actor, 'user.unbanned', { type: 'user', id: member.id });
      return {
        user_id: member.id,
        service_user_id: member.serviceUserId,
        is_active: member.isActive,
        banned: false,
        banned_at: null,
        ban_reason: null,
        rejected_bonus_ids: [],
      };
    });
    this.links.forgetMember(tenantId, answer.user_id);
    return answer;
  }
}
