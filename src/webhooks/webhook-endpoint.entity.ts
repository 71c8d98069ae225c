import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { TenantEntity } from '../tenants/tenant.entity';

/** The tenant's one receiver (docs/webhooks.md); secrets sealed with AES-256-GCM, never plain. */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpointEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'text', array: true }) events: string[];
  @Column({ type: 'boolean', default: true }) enabled: boolean;
  @Column({ type: 'text', name: 'secret_sealed' }) secretSealed: string;
  /** The secret before the last rotation, still signing until `previous_secret_expires_at`. */
  @Column({ type: 'text', name: 'previous_secret_sealed', nullable: true })
  previousSecretSealed: string | null;
  @Column({ type: 'timestamptz', name: 'previous_secret_expires_at', nullable: true })
  previousSecretExpiresAt: Date | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' }) updatedAt: Date;

  @OneToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_webhook_endpoints_tenant' })
  tenant?: TenantEntity;
}
