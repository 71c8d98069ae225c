import { Injectable } from '@nestjs/common';
import type { GroupDirectory, GroupMove } from '../members/group-directory';
import { EventsService } from '../outbox/events.service';
import { GroupNotFoundError } from './group.errors';
import { GroupsRepository } from './groups.repository';

/** The members' port to groups (GROUP_DIRECTORY, members/group-directory.ts). */
@Injectable()
export class GroupDirectoryService implements GroupDirectory {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly events: EventsService,
  ) {}

  async groupIdBySlug(tenantId: string, slug: string): Promise<string> {
    const group = await this.groups.findBySlug(tenantId, slug);
    if (!group) throw new GroupNotFoundError(slug);
    return group.id;
  }

  /** `partner.group_changed`, in the moving transaction; `user_id` is the `usr_` id, as in every event. */
  async moved(tenantId: string, move: GroupMove): Promise<void> {
    await this.events.emit(tenantId, 'partner.group_changed', {
      user_id: move.serviceUserId,
      from_group_id: move.fromGroupId,
      to_group_id: move.toGroupId,
      reason: move.reason,
    });
  }
}
