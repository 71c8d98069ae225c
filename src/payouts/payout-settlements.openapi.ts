import { lines, type SharedWrite } from '../common/http/write-routes';

/**
 * What the bank did with a payout, reported by the tenant's back end (PayoutsFederationController,
 * Federation API) or by its staff (PayoutsAdminController, Admin API): the same bodies and
 * refusals on both surfaces, described once here (docs/architecture.md, "One write, two
 * surfaces"). Both are recorded in the audit log: a payout is money leaving the program.
 */
export const PAYOUT_SETTLEMENTS = {
  paid: {
    path: ':payout_id/paid',
    summary: "pending → paid with the transfer's reference; its bonuses become paid.",
    role: 'manager',
    problems: [
      [404, 'payout_not_found'],
      [409, 'invalid_transition'],
    ],
  },
  failed: {
    path: ':payout_id/failed',
    summary: lines(
      'pending → failed with a reason (also: the bank returned the payment before settling); its',
      "items return to the partner's balance.",
    ),
    role: 'manager',
    problems: [
      [404, 'payout_not_found'],
      [409, 'invalid_transition'],
    ],
  },
} satisfies Record<string, SharedWrite>;
