import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { Program } from '../tenants/program';
import { TenantEntity } from '../tenants/tenant.entity';

/** Something a tenant sells; with its own program, leads for it are paid by that program. */
@Entity({ name: 'offers' })
export class OfferEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text' }) id: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', nullable: true }) url: string | null;
  /** null: the tenant's default program applies. */
  @Column({ type: 'jsonb', nullable: true }) program: Program | null;
  /** The `prv_…` of the offer's latest program change (docs/money.md §2, "Versions"). */
  @Column({ type: 'text', name: 'program_version_id', nullable: true })
  programVersionId?: string | null;
  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' }) createdAt: Date;

  @ManyToOne(() => TenantEntity)
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_offers_tenant' })
  tenant?: TenantEntity;
}
