import { Injectable } from '@nestjs/common';
import { AuditService } from '../../audit/audit.service';
import { type Actor, type AuditActor, partnerActor } from '../../common/access/actor';
import { open, seal } from '../../common/crypto/secret-box';
import { type FieldError, ValidationFailedError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config';
import { TransactionHost } from '../../database/transaction-host';
import { MemberNotFoundError } from '../../members/member.errors';
import {
  checkPayoutDetails,
  maskPayoutDetails,
  type PayoutDetails,
  type PayoutDetailsFormValues,
  type PayoutDetailsInput,
  type PayoutMethod,
} from './payout-details.input';
import { PayoutDetailsRepository } from './payout-details.repository';

const FORM_FIELDS = ['method', 'holder', 'iban', 'account', 'bik', 'email'] as const;

const pgCode = (error: unknown) =>
  (error as { driverError?: { code?: string }; code?: string }).driverError?.code ??
  (error as { code?: string }).code;

/** What staff, the Admin API and the partner's own page see of a partner's payout details. */
export interface MaskedPayoutDetails {
  method: PayoutMethod;
  /** `•••• 1234` (last 4 of the IBAN or account) or `j•••@example.com`. */
  masked: string;
  updatedAt: Date;
}

/**
 * The additional data a member's sealed details are bound to (secret-box.ts): a sealed value
 * copied to another tenant's or member's row, or a payout of theirs, does not open.
 */
export const payoutDetailsAad = (tenantId: string, memberId: string) =>
  `payout-details:${tenantId}:${memberId}`;

/**
 * Whether `actor` may see payout details in full (the run CSV): the tenant's owners and the
 * platform operator; managers and viewers see them masked (docs/payouts.md §4).
 */
export function seesFullPayoutDetails(actor: Actor): boolean {
  return actor.type === 'platform' || (actor.type === 'staff' && actor.role === 'owner');
}

/**
 * A partner's payout details (docs/partners.md, "Payout details"): checked, sealed under
 * SECRETS_ENCRYPTION_KEY bound to the tenant and member, audited; read back masked. The partner
 * portal saves them for its signed-in member; payout runs copy them onto each new payout
 * (payouts.repository.ts) and the run CSV opens that copy for owners (payouts-csv.service.ts).
 */
@Injectable()
export class PayoutDetailsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repo: PayoutDetailsRepository,
    private readonly audit: AuditService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Checks and stores the member's details, replacing any (400 `validation_failed` naming the
   * field: `method`, `holder`, `iban`, `account`, `bik`, `email`); audited as
   * `payout_details.updated` with the method and the masked form only. `memberId` is the
   * `mbr_…` of a member of `tenantId` (else 404 `user_not_found`). Answers the masked details.
   */
  async save(
    tenantId: string,
    memberId: string,
    input: PayoutDetailsInput,
    actor: AuditActor = partnerActor(memberId),
  ): Promise<MaskedPayoutDetails> {
    const details = checkPayoutDetails(input);
    const masked = maskPayoutDetails(details);
    const sealed = seal(
      JSON.stringify(details),
      this.config.secretsEncryptionKey,
      payoutDetailsAad(tenantId, memberId),
    );
    return this.tx.transaction(async () => {
      const { previous } = await this.repo
        .upsert(tenantId, memberId, details.method, sealed)
        .catch((error: unknown) => {
          // The foreign key to members: no such member in this tenant.
          if (pgCode(error) === '23503') throw new MemberNotFoundError(memberId);
          throw error;
        });
      await this.audit.record(
        tenantId,
        actor,
        'payout_details.updated',
        { type: 'member', id: memberId },
        { method: details.method, masked, previous_method: previous },
      );
      return { method: details.method, masked, updatedAt: new Date() };
    });
  }

  /**
   * save() for the portal's posted form (`body`: the form's fields; `_csrf` and others are not
   * read): the saved details, masked, or, when the check refused them, what the form shows again
   * (PayoutDetailsForm's `posted`: the posted values and the field errors).
   */
  async saveForm(
    tenantId: string,
    memberId: string,
    body: Record<string, unknown>,
  ): Promise<
    | { saved: MaskedPayoutDetails }
    | { posted: { values: PayoutDetailsFormValues; errors: FieldError[] } }
  > {
    const values: PayoutDetailsFormValues = {};
    for (const name of FORM_FIELDS) if (typeof body[name] === 'string') values[name] = body[name];
    try {
      return { saved: await this.save(tenantId, memberId, values) };
    } catch (error) {
      if (error instanceof ValidationFailedError)
        return { posted: { values, errors: error.errors ?? [] } };
      throw error;
    }
  }

  /** The member's details, masked; null when they have none (or are not of this tenant). */
  async getMasked(tenantId: string, memberId: string): Promise<MaskedPayoutDetails | null> {
    const row = await this.repo.find(tenantId, memberId);
    if (!row) return null;
    const details = this.open(tenantId, memberId, row.sealed);
    return {
      method: details.method,
      masked: maskPayoutDetails(details),
      updatedAt: row.updated_at,
    };
  }

  /** docs/privacy.md: the member's details in full (the subject-access export), or null. */
  async personalData(tenantId: string, memberId: string): Promise<PayoutDetails | null> {
    const row = await this.repo.find(tenantId, memberId);
    return row && this.open(tenantId, memberId, row.sealed);
  }

  /** Removes the member's details (audited); whether there were any. For erasure (SPEC 17). */
  remove(tenantId: string, memberId: string, actor: AuditActor): Promise<boolean> {
    return this.tx.transaction(async () => {
      const removed = await this.repo.delete(tenantId, memberId);
      if (removed)
        await this.audit.record(tenantId, actor, 'payout_details.removed', {
          type: 'member',
          id: memberId,
        });
      return removed;
    });
  }

  /**
   * Opens details sealed for this tenant and member (theirs, or a payout's copy of them); throws
   * when they were sealed for another tenant or member, or under another key.
   */
  open(tenantId: string, memberId: string, sealed: string): PayoutDetails {
    return JSON.parse(
      open(sealed, this.config.secretsEncryptionKey, payoutDetailsAad(tenantId, memberId)),
    ) as PayoutDetails;
  }
}
