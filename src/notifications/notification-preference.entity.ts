import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The partner mail types (docs/partners.md, "Notifications"), in the order pages list them. */
export const NOTIFICATION_TYPES = [
  'bonus.pending',
  'bonus.approved',
  'payout.paid',
  'partner.approved',
  'partner.rejected',
  'downline.joined',
  'bounty.reached',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** How a member gets one type: at once, in the daily digest, or not at all. */
export const NOTIFICATION_MODES = ['instant', 'daily', 'off'] as const;
export type NotificationMode = (typeof NOTIFICATION_MODES)[number];

/** A type's mode until the member or staff set one: at once for money paid and decisions. */
export const DEFAULT_MODES: Readonly<Record<NotificationType, NotificationMode>> = {
  'bonus.pending': 'daily',
  'bonus.approved': 'daily',
  'payout.paid': 'instant',
  'partner.approved': 'instant',
  'partner.rejected': 'instant',
  'downline.joined': 'daily',
  'bounty.reached': 'daily',
};

/** One member's chosen mode of one mail type; a type without a row has its default. */
@Entity({ name: 'notification_preferences' })
export class NotificationPreferenceEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text', name: 'member_id' }) memberId: string;
  @PrimaryColumn({ type: 'text' }) type: NotificationType;
  @Column({ type: 'text' }) mode: NotificationMode;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}
