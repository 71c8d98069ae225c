import type { SharedWrite } from '../common/http/write-routes';

/**
 * A lead's status, moved by the tenant's back end (LeadsController, Federation API) or by its
 * staff (LeadsAdminController, Admin API): the same body and refusals on both surfaces, described
 * once here (docs/architecture.md, "One write, two surfaces").
 */
export const CHANGE_LEAD_STATUS = {
  path: ':lead_id/status',
  summary: 'Moves a lead: new → processed, new → rejected, processed → rejected.',
  role: 'manager',
  problems: [
    [404, 'lead_not_found'],
    [409, 'invalid_transition'],
  ],
} satisfies SharedWrite;
