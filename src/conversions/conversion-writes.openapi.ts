import { lines, type SharedWrite } from '../common/http/write-routes';

/**
 * The conversion writes of the tenant's back end (ConversionsController, Federation API) and of
 * its staff (ConversionsAdminController, Admin API): the same bodies and refusals on both
 * surfaces, described once here (docs/architecture.md, "One write, two surfaces").
 */
export const CONVERSION_WRITES = {
  register: {
    path: 'register',
    summary: lines(
      'Registers an order and pays bonuses to the referrer and uplines (pending). The same',
      '`external_order_id` again returns the first conversion; with other data, 409. Instead of',
      '`lead_id`, `promo_code` or `signed_ref` plus `customer` name the partner: the lead is',
      'created in the same transaction and the answer adds `lead_id` (docs/fraud.md). An amount,',
      "or bonuses, that would take the tenant's money past the safe range: 422",
      '`amount_out_of_range` (docs/money.md).',
    ),
    role: 'manager',
    problems: [
      [404, 'lead_not_found'],
      [404, 'promo_code_not_found'],
      [404, 'referrer_not_found'],
      [409, 'external_order_id_conflict'],
      [409, 'invalid_transition'],
      [422, 'invalid_ref'],
      [422, 'ref_expired'],
      [422, 'self_referral'],
      [422, 'amount_out_of_range'],
    ],
  },
  preview: {
    path: 'preview',
    summary: 'The bonuses `register` would create; writes nothing.',
    role: 'viewer',
    problems: [
      [404, 'lead_not_found'],
      [409, 'invalid_transition'],
    ],
  },
  reverse: {
    path: ':conversion_id/reverse',
    summary: 'Cancels a conversion (return or refund): its bonuses are written off.',
    role: 'manager',
    problems: [
      [404, 'conversion_not_found'],
      [409, 'already_reversed'],
    ],
  },
} satisfies Record<string, SharedWrite>;
