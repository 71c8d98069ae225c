import { Column, Entity, PrimaryColumn } from 'typeorm';

export const APPLICATION_STATUSES = ['unconfirmed', 'pending', 'approved', 'rejected'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

/** The two statuses of a live application: at most one per tenant and email (uq_applications_live). */
export const LIVE_STATUSES: readonly ApplicationStatus[] = ['unconfirmed', 'pending'];

/**
 * Someone's application to become a partner of a tenant (`apl_…`, docs/partners.md,
 * "Applications"): unconfirmed until its mailed link is confirmed, then pending until staff decide
 * (or approved at once in a group that auto-approves).
 */
@Entity({ name: 'applications' })
export class ApplicationEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text', name: 'group_id' }) groupId: string;
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text', name: 'full_name' }) fullName: string;
  @Column({ type: 'jsonb' }) answers: Record<string, string>;
  @Column({ type: 'text' }) status: ApplicationStatus;
  /** The recruiting partner (`mbr_…`) of the `ref` the application came with. */
  @Column({ type: 'text', name: 'referrer_member_id', nullable: true })
  referrerMemberId: string | null;
  /** The member approval made (`mbr_…`). */
  @Column({ type: 'text', name: 'member_id', nullable: true }) memberId: string | null;
  @Column({ type: 'text', nullable: true }) reason: string | null;
  /** SHA-256 (hex) of the confirmation token of the last mail; null once confirmed or never mailed. */
  @Column({ type: 'text', name: 'token_hash', nullable: true }) tokenHash: string | null;
  @Column({ type: 'timestamptz', name: 'token_expires_at', nullable: true })
  tokenExpiresAt: Date | null;
  @Column({ type: 'timestamptz', name: 'mailed_at', nullable: true }) mailedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'created_at' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt: Date;
  @Column({ type: 'timestamptz', name: 'confirmed_at', nullable: true }) confirmedAt: Date | null;
  @Column({ type: 'timestamptz', name: 'decided_at', nullable: true }) decidedAt: Date | null;
}

/**
 * An application as its readers see it: with the service user ids of its recruiter and of the
 * member approval made, and the names of the recruiter and of the group (the console's queue).
 */
export interface ApplicationRow extends ApplicationEntity {
  referrerUserId: string | null;
  userId: string | null;
  referrerName: string | null;
  groupName: string;
}
