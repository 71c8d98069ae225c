import { Injectable } from '@nestjs/common';
import type { MemberEntity } from './member.entity';
import { MemberNotFoundError } from './member.errors';
import { MembersRepository } from './members.repository';
import { ServiceUsersRepository } from './service-users.repository';

/**
 * The members' part of erasure (docs/privacy.md): the member row becomes a deactivated tombstone
 * (personal fields cleared, ids, tree position, counters and group kept), and the service-wide
 * person forgets their email and VK id once no member of any tenant stands on them. The privacy
 * feature runs it in its transaction, with the other features' steps.
 */
@Injectable()
export class MemberErasureService {
  constructor(
    private readonly members: MembersRepository,
    private readonly serviceUsers: ServiceUsersRepository,
  ) {}

  /**
   * Erases the member named by `usr_…` or `mbr_…` (in the caller's transaction); 404
   * `user_not_found` for an unknown one. Answers the member as it was and when it was erased;
   * `first` is false when it had been erased before (nothing changed then).
   */
  async erase(
    tenantId: string,
    ref: string,
  ): Promise<{ member: MemberEntity; erasedAt: Date; first: boolean }> {
    const member = await this.members.findByRef(tenantId, ref);
    if (!member) throw new MemberNotFoundError(ref);
    if (member.erasedAt) return { member, erasedAt: member.erasedAt, first: false };
    const erasedAt = await this.members.erase(tenantId, member.id);
    // A concurrent erasure committed first: answer as a repeat.
    if (!erasedAt) return this.erase(tenantId, member.id);
    if (!(await this.members.serviceUserInUse(member.serviceUserId))) {
      await this.serviceUsers.forget(member.serviceUserId);
    }
    return { member, erasedAt, first: true };
  }
}
