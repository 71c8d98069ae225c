/**
 * The six events of docs/webhooks.md and their payloads, with the extensions (`source` on
 * lead.created, `written_off` on conversion.reversed). These types are the contract receivers see.
 */
export interface EventPayloads {
  'lead.created': {
    lead_id: string;
    referrer_user_id: string;
    contact: { name: string; email: string | null };
    offer_id: string | null;
    metadata: Record<string, unknown>;
    source: string;
  };
  'bonus.pending': {
    bonus_id: string;
    user_id: string;
    amount_kopecks: number;
    currency: string;
    source_type: string;
    source_id: string;
  };
  'bonus.approved': {
    bonus_id: string;
    user_id: string;
    amount_kopecks: number;
    approved_at: string;
  };
  'bonus.rejected': {
    bonus_id: string;
    user_id: string;
    amount_kopecks: number;
    rejected_at: string;
    reason: string;
  };
  /** docs/fraud.md: a bonus held for review, after its bonus.pending. */
  'bonus.flagged': {
    bonus_id: string;
    user_id: string;
    amount_kopecks: number;
    signals: { code: string; detail: string }[];
  };
  'conversion.cascaded': {
    conversion_id: string;
    lead_id: string;
    amount_kopecks: number;
    cascaded_bonuses: { user_id: string; amount_kopecks: number; tier: string }[];
  };
  'conversion.reversed': {
    conversion_id: string;
    reversed_at: string;
    reason: string;
    written_off: { bonus_id: string; user_id: string; amount_kopecks: number; clawback?: true }[];
  };
  /** docs/payouts.md: payouts and clawbacks. */
  'payout.created': {
    payout_id: string;
    user_id: string;
    currency: string;
    amount_kopecks: number;
  };
  'payout.paid': {
    payout_id: string;
    user_id: string;
    currency: string;
    amount_kopecks: number;
    reference: string;
    paid_at: string;
    bonus_ids: string[];
  };
  'payout.failed': {
    payout_id: string;
    user_id: string;
    currency: string;
    amount_kopecks: number;
    reason: string;
  };
  'clawback.created': {
    clawback_id: string;
    user_id: string;
    bonus_id: string;
    amount_kopecks: number;
  };
  /** docs/partners.md: a member moved to another group. */
  'partner.group_changed': {
    user_id: string;
    from_group_id: string;
    to_group_id: string;
    reason: 'manual' | 'promotion' | 'upsert' | 'import';
  };
  /** docs/partners.md, "Applications": an applicant confirmed their application by mail. */
  'partner.applied': {
    application_id: string;
    group_id: string;
    referrer_user_id: string | null;
  };
  /** An application approved: the new partner (`usr_…`) in their group, under their recruiter. */
  'partner.approved': {
    application_id: string;
    user_id: string;
    group_id: string;
    referrer_user_id: string | null;
  };
  'partner.rejected': {
    application_id: string;
    group_id: string;
    reason: string;
  };
  /** docs/money.md, "Bounties": a partner reached a bounty (after the bonus's bonus.pending). */
  'bounty.reached': {
    bounty_id: string;
    user_id: string;
    /** null when the bounty pays 0. */
    bonus_id: string | null;
    value: number;
    threshold: number;
  };
  /** docs/privacy.md: a member's personal data was erased; the member (`usr_…`) stays a tombstone. */
  'member.erased': {
    user_id: string;
  };
}

export type EventType = keyof EventPayloads;
export const EVENT_TYPES = [
  'lead.created',
  'bonus.pending',
  'bonus.approved',
  'bonus.rejected',
  'bonus.flagged',
  'conversion.cascaded',
  'conversion.reversed',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'clawback.created',
  'partner.group_changed',
  'partner.applied',
  'partner.approved',
  'partner.rejected',
  'bounty.reached',
  'member.erased',
] as const satisfies readonly EventType[];

export interface EventEnvelope<T extends EventType = EventType> {
  event_type: T;
  event_id: string;
  occurred_at: string;
  payload: EventPayloads[T];
}

/** Sent by POST …/webhook/test whatever the subscription. */
export const TEST_EVENT_TYPE = 'webhook.test';
