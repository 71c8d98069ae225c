import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The person behind tenant members, service-wide (`usr_…`). Shared by several tenants' members
 * only through the same `vk_id` or the same verified email; it holds nothing else, so no tenant
 * ever reads another tenant's data through it. The one table not keyed by tenant
 * (docs/architecture.md, "Data access").
 */
@Entity({ name: 'service_users' })
export class ServiceUserEntity {
  @PrimaryColumn({ type: 'text' }) id: string;
  @Index('uq_service_users_vk_id', { unique: true })
  @Column({ type: 'text', name: 'vk_id', nullable: true })
  vkId: string | null;
  /** Lower-cased; set only from an email a tenant marked verified. */
  @Index('uq_service_users_verified_email', { unique: true })
  @Column({ type: 'text', name: 'verified_email', nullable: true })
  verifiedEmail: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
}
