import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/access/actor';
import { ValidationFailedError } from '../common/errors/domain-error';
import type { CustomerMatch } from '../common/privacy/personal-data.decorator';
import { AuditService } from '../audit/audit.service';
import { searchable, stringsIn } from '../database/redaction';
import { TransactionHost } from '../database/transaction-host';
import { DeeplinksService } from '../deeplinks/deeplinks.service';
import type { MemberEntity } from '../members/member.entity';
import { MemberNotFoundError } from '../members/member.errors';
import { MemberErasureService } from '../members/member-erasure.service';
import { MembersService } from '../members/members.service';
import { EventsService } from '../outbox/events.service';
import { PayoutDetailsService } from '../payouts/payout-details/payout-details.service';
import type {
  CustomersErasedResponse,
  MemberErasedResponse,
  PersonalDataResponse,
} from './dto/privacy.dto';
import { PersonalDataSteps } from './personal-data-steps';

/**
 * Erasure and the subject-access export (docs/privacy.md, SPEC 17). A member's erasure is one
 * transaction that touches the member's own rows and the rows that copied their values, never
 * their downline: the member stays a deactivated tombstone with the same ids, place in the tree,
 * group, bonuses, ledger and payouts, so everyone else's money is what it was.
 */
@Injectable()
export class PrivacyService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly members: MembersService,
    private readonly erasure: MemberErasureService,
    private readonly steps: PersonalDataSteps,
    private readonly payoutDetails: PayoutDetailsService,
    private readonly events: EventsService,
    private readonly audit: AuditService,
    private readonly links: DeeplinksService,
  ) {}

  async eraseMember(tenantId: string, ref: string, actor: Actor): Promise<MemberErasedResponse> {
    const answer = await this.tx.transaction(async () => {
      const { member, erasedAt, first } = await this.erasure.erase(tenantId, ref);
      if (first) {
        const values = [
          ...(await this.memberValues(member)),
          ...(await this.steps.eraseMember({
            tenantId,
            memberId: member.id,
            serviceUserId: member.serviceUserId,
            email: member.email,
          })),
        ];
        await this.steps.redact(tenantId, searchable(values));
        await this.events.emit(tenantId, 'member.erased', { user_id: member.serviceUserId });
        await this.audit.record(tenantId, actor, 'user.erased', { type: 'user', id: member.id });
      }
      return {
        user_id: member.id,
        service_user_id: member.serviceUserId,
        erased_at: erasedAt.toISOString(),
      };
    });
    this.links.forgetMember(tenantId, answer.user_id);
    return answer;
  }

  /** The member's values as the row held them, and their payout details' (opened). */
  private async memberValues(member: MemberEntity): Promise<string[]> {
    const details = await this.openDetails(member.tenantId, member.id);
    const { method: _method, ...fields } = (details ?? {}) as Record<string, unknown>;
    return [
      member.email,
      member.fullName,
      member.vkId,
      member.lastSeenIp,
      member.banReason,
      // An external id may be an email or a phone; a short one would match anything.
      member.externalId.length >= 6 ? member.externalId : null,
      ...stringsIn(fields),
    ].filter((v): v is string => !!v);
  }

  private async openDetails(tenantId: string, memberId: string) {
    try {
      return await this.payoutDetails.personalData(tenantId, memberId);
    } catch {
      return null; // sealed under a key no longer held: nothing readable to search for
    }
  }

  async eraseCustomer(
    tenantId: string,
    match: CustomerMatch,
    actor: Actor,
  ): Promise<CustomersErasedResponse> {
    if (!match.email && !match.phone && !match.external_id) {
      throw new ValidationFailedError([
        { field: 'email', message: 'give at least one of email, phone and external_id' },
      ]);
    }
    return this.tx.transaction(async () => {
      const { counts, values } = await this.steps.eraseCustomer(tenantId, match);
      await this.steps.redact(
        tenantId,
        searchable([...values, match.email, match.phone, match.external_id]),
      );
      const answer = { leads: counts.leads ?? 0, conversions: counts.conversions ?? 0 };
      // The entry says how many, never whom.
      await this.audit.record(
        tenantId,
        actor,
        'customers.erased',
        { type: 'tenant', id: tenantId },
        answer,
      );
      return answer;
    });
  }

  async personalData(tenantId: string, ref: string): Promise<PersonalDataResponse> {
    const member = await this.members.findMember(tenantId, ref);
    if (!member) throw new MemberNotFoundError(ref);
    const parts = await this.steps.export(tenantId, member.id);
    const details = await this.openDetails(tenantId, member.id);
    return {
      user_id: member.id,
      exported_at: new Date().toISOString(),
      profile: {},
      applications: [],
      sign_in_codes: [],
      sessions: [],
      links: [],
      ...parts,
      payout_details: details as Record<string, unknown> | null,
    };
  }
}
