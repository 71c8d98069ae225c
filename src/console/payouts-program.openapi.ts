import type { SchemaObject } from '../common/http/html-openapi';
import {
  consoleActionDocs,
  consoleCsvDocs,
  consolePageDocs,
  LANG,
  refusedOn,
  STRING,
} from './org-page.openapi';

/**
 * OpenAPI of the console's payouts pages (`/org/{slug}/payouts…`) and program page
 * (`/org/{slug}/program`), as console.openapi.ts documents the others.
 */

const INT: SchemaObject = { type: 'integer', minimum: 1 };
const REFUSED = refusedOn('payout or run');

const page = (summary: string, query: Record<string, SchemaObject>) =>
  consolePageDocs(summary, { ...query, notice: STRING, error: STRING, lang: LANG }, REFUSED);

const csv = (summary: string, query: Record<string, SchemaObject>) =>
  consoleCsvDocs(
    summary,
    query,
    REFUSED,
    'RFC 4180 CSV, UTF-8, the columns of the transfer export, oldest first',
  );

function action(
  summary: string,
  fields: Record<string, SchemaObject>,
  required: string[],
  back: string,
  pages: [number, string][] = [],
) {
  return consoleActionDocs({
    summary,
    description: `Redirects to \`${back}\` with \`notice\` or \`error\`.`,
    fields,
    required,
    redirect: 'The page with the outcome',
    back,
    refused: REFUSED,
    pages,
  });
}

const TIER_FIELDS: Record<string, SchemaObject> = {
  lead_bonus: { type: 'string', description: 'Bonus per lead, in the currency (`50.00`)' },
  grace_period_hours: { type: 'string', description: 'Hours before a bonus is approved' },
  compression: { type: 'string', description: '`on`: tiers compress (docs/money.md §2)' },
  phased: { type: 'string', description: '`1`: save as `phases` even with one phase for ever' },
  phase_0_limit: {
    type: 'string',
    enum: ['', 'months', 'conversions'],
    description: 'Phase p (0-based): how it ends; empty: for ever (the last phase only)',
  },
  phase_0_count: { type: 'string', description: 'Phase p: how many months or conversions' },
  p0_percent_0: { type: 'string', description: 'Phase p, tier n (0 = referrer): percent (`2.5`)' },
  p0_fixed_0: { type: 'string', description: 'Phase p, tier n: fixed amount (`100.00`)' },
  p0_qmin_1: { type: 'string', description: 'Phase p, upline tier n: least personal sales' },
  p0_qdays_1: { type: 'string', description: 'Phase p, upline tier n: over this many days' },
  promote_group: { type: 'string', description: 'A group: promote to this group (grp_…)' },
  promote_conversions: { type: 'string', description: 'A group: least own conversions' },
  promote_revenue: { type: 'string', description: 'A group: least own revenue (`1000.00`)' },
  promote_days: { type: 'string', description: 'A group: within this many days' },
  amount: { type: 'string', description: 'The example conversion amount of the preview' },
};

export const PayoutsProgramDocs = {
  payouts: () =>
    page('The payouts: runs, payouts by run and status, settling a run', {
      run: { type: 'string', description: 'Only the payouts of this run (run_…)' },
      status: { type: 'string', enum: ['pending', 'paid', 'failed', 'canceled'] },
      user: { type: 'string', description: 'Only this partner’s payouts (mbr_… or usr_…)' },
      page: INT,
      runs_page: INT,
    }),
  payout: () => page('One payout: what it pays, mark paid / failed, cancel', {}),
  runCsv: () =>
    consoleCsvDocs(
      "The run's mass-payout CSV (docs/payouts.md)",
      {},
      REFUSED,
      'RFC 4180 CSV, UTF-8',
      false,
    ),
  payoutsCsv: () =>
    csv("The payouts export with the payouts list's filters, streamed", {
      run: STRING,
      status: { type: 'string', enum: ['pending', 'paid', 'failed', 'canceled'] },
      user: { type: 'string', description: 'The partner: mbr_… or usr_…' },
    }),
  runsCsv: () => csv('Every payout run with its payouts by status now, streamed', {}),
  run: () => action('Runs payouts now', {}, [], '/org/{slug}/payouts?run={run_id}'),
  settle: () =>
    action(
      'Settles a run from its CSV with a reference column (all or nothing)',
      { csv: { type: 'string', description: 'The run CSV plus a `reference` column' } },
      ['csv'],
      '/org/{slug}/payouts?run={run_id}',
      [[400, 'The page again with the refused lines, nothing marked paid']],
    ),
  paid: () =>
    action(
      'Marks the payout paid',
      { reference: STRING },
      ['reference'],
      '/org/{slug}/payouts/{payout_id}',
    ),
  failed: () =>
    action(
      'Marks the payout failed',
      { reason: STRING },
      ['reason'],
      '/org/{slug}/payouts/{payout_id}',
    ),
  cancel: () => action('Cancels the payout', {}, [], '/org/{slug}/payouts/{payout_id}'),
  program: () =>
    page('The programs: the default, each offer’s and group’s, with the cascade preview', {
      offer: { type: 'string', description: 'Edit this offer’s program (ofr_…)' },
      group: { type: 'string', description: 'Edit this group’s program and promotion (grp_…)' },
      amount_kopecks: {
        type: 'integer',
        minimum: 1,
        description: 'Preview amount (default 1000000)',
      },
    }),
  saveProgram: () =>
    action(
      'Previews (`intent=preview`), changes (`add_phase`, `remove_phase_<p>`, `add_tier_<p>`, `remove_tier_<p>_<n>`) or saves (`intent=save`) a program',
      {
        intent: { type: 'string', description: '`preview`, `save` or an add/remove intent' },
        offer: { type: 'string', description: 'The offer (ofr_…); absent: the default program' },
        group: { type: 'string', description: 'The group (grp_…), instead of an offer' },
        use_default: {
          type: 'string',
          description: '`on`: the offer or group follows the default program',
        },
        ...TIER_FIELDS,
      },
      ['intent'],
      '/org/{slug}/program',
      [
        [200, 'The preview (intent=preview) or the changed form (add/remove)'],
        [400, 'The form again with what is wrong'],
      ],
    ),
};
