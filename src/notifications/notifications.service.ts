import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { type AuditActor, partnerActor } from '../common/access/actor';
import { type FieldError, ValidationFailedError } from '../common/errors/domain-error';
import { TransactionHost } from '../database/transaction-host';
import { MembersService } from '../members/members.service';
import type { NotificationPreferencesResponse } from './dto/notification-preferences.dto';
import {
  DEFAULT_MODES,
  NOTIFICATION_MODES,
  NOTIFICATION_TYPES,
  type NotificationMode,
  type NotificationType,
} from './notification-preference.entity';
import { NotificationPreferencesRepository } from './notification-preferences.repository';

export type NotificationPreferences = Record<NotificationType, NotificationMode>;

const isType = (v: string): v is NotificationType =>
  (NOTIFICATION_TYPES as readonly string[]).includes(v);
const isMode = (v: unknown): v is NotificationMode =>
  typeof v === 'string' && (NOTIFICATION_MODES as readonly string[]).includes(v);

/**
 * Each member's mode of each partner mail type (docs/partners.md, "Notifications"): `instant`,
 * `daily` (the digest) or `off`, defaults where none was set. Set by the partner in the portal
 * and by staff through the Admin API; a change is audited with the types changed.
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repo: NotificationPreferencesRepository,
    private readonly members: MembersService,
    private readonly audit: AuditService,
  ) {}

  /** Every type's mode for the member (`usr_…` or `mbr_…`; else 404 `user_not_found`). */
  async forUser(tenantId: string, userRef: string): Promise<NotificationPreferencesResponse> {
    const memberId = await this.memberId(tenantId, userRef);
    return { user_id: memberId, preferences: await this.preferences(tenantId, memberId) };
  }

  /** Every type's mode for a member known to be of this tenant (the portal's own member). */
  async preferences(tenantId: string, memberId: string): Promise<NotificationPreferences> {
    const set = await this.repo.of(tenantId, memberId);
    const all = { ...DEFAULT_MODES };
    for (const row of set) if (isType(row.type) && isMode(row.mode)) all[row.type] = row.mode;
    return all;
  }

  /**
   * Merges `given` (type → mode) into the member's preferences: all or nothing, 400
   * `validation_failed` naming `preferences.<type>` for an unknown type or mode. Answers every
   * type's mode after the change.
   */
  async update(
    tenantId: string,
    userRef: string,
    given: Record<string, unknown>,
    actor: AuditActor,
  ): Promise<NotificationPreferencesResponse> {
    const modes = checked(given);
    const memberId = await this.memberId(tenantId, userRef);
    await this.save(tenantId, memberId, modes, actor);
    return { user_id: memberId, preferences: await this.preferences(tenantId, memberId) };
  }

  /** The portal's form: the member's own preferences, merged as update() does. */
  async updateOwn(
    tenantId: string,
    memberId: string,
    given: Record<string, unknown>,
  ): Promise<NotificationPreferences> {
    await this.save(tenantId, memberId, checked(given), partnerActor(memberId));
    return this.preferences(tenantId, memberId);
  }

  private save(
    tenantId: string,
    memberId: string,
    modes: [NotificationType, NotificationMode][],
    actor: AuditActor,
  ): Promise<void> {
    if (!modes.length) return Promise.resolve();
    return this.tx.transaction(async () => {
      await this.repo.set(tenantId, memberId, modes);
      await this.audit.record(
        tenantId,
        actor,
        'notifications.preferences_updated',
        { type: 'member', id: memberId },
        { preferences: Object.fromEntries(modes) },
      );
    });
  }

  private async memberId(tenantId: string, userRef: string): Promise<string> {
    const member = await this.members.findMember(tenantId, userRef);
    if (!member) return (await this.members.getMember(tenantId, userRef)).id;
    return member.id;
  }
}

/** The given modes as pairs, or 400 naming each unknown type or mode. */
function checked(given: Record<string, unknown>): [NotificationType, NotificationMode][] {
  const errors: FieldError[] = [];
  const pairs: [NotificationType, NotificationMode][] = [];
  for (const [type, mode] of Object.entries(given)) {
    if (!isType(type)) {
      errors.push({
        field: `preferences.${type}`,
        message: `is not a mail type (one of ${NOTIFICATION_TYPES.join(', ')})`,
      });
    } else if (!isMode(mode)) {
      errors.push({
        field: `preferences.${type}`,
        message: `must be one of ${NOTIFICATION_MODES.join(', ')}`,
      });
    } else pairs.push([type, mode]);
  }
  if (errors.length) throw new ValidationFailedError(errors);
  return pairs;
}
