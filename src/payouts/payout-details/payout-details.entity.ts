import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * How a partner wants to be paid (docs/partners.md, "Payout details"): one row per member, the
 * details sealed under SECRETS_ENCRYPTION_KEY and bound to the tenant and member
 * (payout-details.service.ts). Nothing of the details is stored in the clear, not even the masked
 * form: it is made from the opened value when read.
 */
@Entity({ name: 'payout_details' })
export class PayoutDetailsEntity {
  @PrimaryColumn({ type: 'text', name: 'tenant_id' }) tenantId: string;
  @PrimaryColumn({ type: 'text', name: 'member_id' }) memberId: string;
  /** `bank_account` or `paypal`. */
  @Column({ type: 'text' }) method: string;
  /** The details as JSON, sealed (common/crypto/secret-box.ts, `v1.<iv>.<tag>.<ciphertext>`). */
  @Column({ type: 'text' }) sealed: string;
  @Column({ type: 'timestamptz', name: 'updated_at' }) updatedAt: Date;
}
