/**
 * The port through which members reach partner groups (docs/partners.md). Groups are built on the
 * members (a group counts them, moves them), so the members declare what they need of groups
 * here, and GroupsModule provides it, as the ledger provides the bonuses' BONUS_LEDGER.
 */
export const GROUP_DIRECTORY = Symbol('GROUP_DIRECTORY');

/** Why a member changed group: the `reason` of `partner.group_changed`. */
export type GroupChangeReason = 'manual' | 'promotion' | 'upsert' | 'import';

export interface GroupMove {
  memberId: string;
  serviceUserId: string;
  fromGroupId: string;
  toGroupId: string;
  reason: GroupChangeReason;
}

export interface GroupDirectory {
  /** The id of the tenant's group with this slug; 404 `group_not_found` when there is none. */
  groupIdBySlug(tenantId: string, slug: string): Promise<string>;
  /** Called in the transaction that moved a member to another group (its event). */
  moved(tenantId: string, move: GroupMove): Promise<void>;
}
