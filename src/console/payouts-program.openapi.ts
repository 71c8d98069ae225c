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
  percent_0: { type: 'string', description: 'Tier n (0 = referrer): percent (`10`, `2.5`)' },
  fixed_0: { type: 'string', description: 'Tier n: fixed amount in the currency (`100.00`)' },
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
    page('The program: the default program and the offers, with the cascade preview', {
      offer: { type: 'string', description: 'Edit this offer’s program (ofr_…)' },
      amount_kopecks: {
        type: 'integer',
        minimum: 1,
        description: 'Preview amount (default 1000000)',
      },
    }),
  saveProgram: () =>
    action(
      'Previews (`intent=preview`) or saves (`intent=save`) the default or an offer’s program',
      {
        intent: { type: 'string', enum: ['preview', 'save'] },
        offer: { type: 'string', description: 'The offer (ofr_…); absent: the default program' },
        use_default: { type: 'string', description: '`on`: the offer follows the default program' },
        ...TIER_FIELDS,
      },
      ['intent'],
      '/org/{slug}/program',
      [
        [200, 'The preview (intent=preview)'],
        [400, 'The form again with what is wrong'],
      ],
    ),
};
