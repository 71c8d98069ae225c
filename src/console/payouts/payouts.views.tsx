import type { ConsoleCtx } from '../org-page';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import type { PayoutSettings } from '../../tenants/payout-settings';
import { PAYOUT_STATUSES } from '../../payouts/payout.entity';
import type { PayoutListResponse, PayoutRunListResponse } from '../../payouts/dto/payout.response';
import type { FieldError } from '../../common/errors/domain-error';
import { DataTable, Pager, withParams } from '../../pages/layout';
import { consolePage } from '../console-page';
import { PAYOUT_TEXTS, type PayoutTexts } from './payouts.i18n';
import { PAYOUTS_SCRIPT } from './payouts.script';

/** `2026-11-21T09:30:00.000Z` → `2026-11-21 09:30`. */
export const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/** A partner of a payout as the pages name them: `usr_…` → member id and display name. */
export type PayoutNames = Map<string, { member_id: string; display_name: string }>;

export interface PayoutsPageData {
  settings: PayoutSettings;
  runs: PayoutRunListResponse;
  payouts: PayoutListResponse;
  names: PayoutNames;
  filters: { run?: string; status?: string; user?: string };
  /** The settle form as last sent, and the lines it was refused for. */
  settle?: { csv: string; errors: FieldError[] };
}

const BADGE: Record<string, string> = {
  pending: 'badge',
  paid: 'badge on',
  failed: 'badge off',
  canceled: 'badge off',
};

export function PayoutStatus({ t, status }: { t: PayoutTexts; status: string }) {
  const label = (t as unknown as Record<string, string>)[status] ?? status;
  return (
    <span class={BADGE[status] ?? 'badge'} data-payout-status={status}>
      {label}
    </span>
  );
}

function scheduleText(t: PayoutTexts, schedule: string): string {
  const [kind, day] = schedule.split(':');
  if (kind === 'weekly') return t.weekly(Number(day));
  if (kind === 'monthly') return t.monthly(Number(day));
  return t.manual;
}

const NOTICES: Record<string, keyof PayoutTexts> = {
  paid: 'markedPaid',
  failed: 'markedFailed',
  canceled: 'markedCanceled',
};

export function noticeText(t: PayoutTexts, notice: string | undefined): string | undefined {
  if (!notice) return undefined;
  const key = NOTICES[notice];
  if (key) return t[key] as string;
  const run = /^run:(\d+)$/.exec(notice);
  if (run) return t.runCreated(Number(run[1]));
  const settled = /^settled:(\d+)$/.exec(notice);
  if (settled) return t.settled(Number(settled[1]));
  return notice;
}

/**
 * A refused line of a settle file in the page's language: PayoutsCsvService's English messages
 * (src/payouts/payouts-csv.service.ts) said in Russian on a Russian page; anything else as is.
 */
const SETTLE_RU: [RegExp, (...m: string[]) => string][] = [
  [/^line (\d+)$/, (n) => `строка ${n}`],
  [/^payout_id "(.*)" is not a payout of this run$/, (id) => `«${id}» — не выплата этого запуска`],
  [/^payout (\S+) is listed twice$/, (id) => `выплата ${id} указана дважды`],
  [/^amount_kopecks (.*) differs from (\d+)$/, (a, b) => `amount_kopecks ${a} не равно ${b}`],
  [/^amount (.*) differs from (.*)$/, (a, b) => `amount ${a} не равно ${b}`],
  [/^reference must be 1 to 200 characters$/, () => 'reference: от 1 до 200 символов'],
  [/^payout (\S+) is (\w+)$/, (id, st) => `выплата ${id} уже не ожидает (${st})`],
  [/^column (\w+) is missing$/, (c) => `нет столбца ${c}`],
  [/^the file lists no payout$/, () => 'в файле нет ни одной выплаты'],
];

function sayRu(text: string): string {
  for (const [re, say] of SETTLE_RU) {
    const m = re.exec(text);
    if (m) return say(...m.slice(1));
  }
  return text;
}

function settleLine(lang: string, e: FieldError): string {
  return lang === 'ru' ? `${sayRu(e.field)}: ${sayRu(e.message)}` : `${e.field}: ${e.message}`;
}

/** The payouts page: settings, runs (with the run form), payouts by run and status, settling. */
export function payoutsPage(
  ctx: ConsoleCtx,
  d: PayoutsPageData,
  shown: { notice?: string; error?: string; status?: number },
): HtmlPage {
  const { t: common, int, money } = ctx.fmt;
  const t = PAYOUT_TEXTS[ctx.fmt.lang];
  const base = `/org/${ctx.tenant.slug}/payouts`;
  const partnerHref = (userId: string) =>
    `/org/${ctx.tenant.slug}/partners/${d.names.get(userId)?.member_id ?? userId}`;
  const totals = (r: { currency_totals: Record<string, number> }) =>
    Object.entries(r.currency_totals)
      .map(([c, k]) => money(k, c))
      .join(' · ') || money(0);
  const run = d.filters.run;
  return consolePage(
    ctx,
    {
      title: common.payouts,
      area: 'payouts',
      script: PAYOUTS_SCRIPT,
      notice: noticeText(t, shown.notice),
      error: shown.error,
      status: shown.status,
    },
    <>
      <p class="muted">
        {t.settings(
          money(d.settings.minimum_kopecks),
          scheduleText(t, d.settings.schedule),
          d.settings.hold_days,
        )}
        {d.settings.require_details && t.requireDetails}
      </p>
      <section aria-labelledby="runs-h">
        <h2 id="runs-h">{t.runs}</h2>
        {ctx.can('manager') ? (
          <form method="post" action={`${base}/runs`} class="actions">
            <CsrfField value={ctx.csrf} />
            <button type="submit" data-action="run">
              {t.runNow}
            </button>
            <span class="muted">{t.runHint}</span>
          </form>
        ) : (
          <p class="muted">{t.viewerNote}</p>
        )}
        <p class="csv">
          <a href={`/org/${ctx.tenant.slug}/payout-runs.csv`} download data-link="runs-csv">
            {t.runsCsv}
          </a>
        </p>
        <DataTable
          caption={t.runs}
          hideCaption
          headers={[t.created, t.run, t.trigger, t.count, t.total, t.byStatus, '']}
          numeric={[3, 4]}
          empty={common.nothing}
          rows={d.runs.items.map((r) => [
            minute(r.created_at),
            <code class="id">{r.run_id}</code>,
            r.trigger,
            <span data-run-count={r.run_id}>{int(r.payouts_count)}</span>,
            <span data-run-total={r.run_id} data-value={String(r.total_kopecks)}>
              {totals(r)}
            </span>,
            [
              r.status_counts.pending,
              r.status_counts.paid,
              r.status_counts.failed,
              r.status_counts.canceled,
            ]
              .map(int)
              .join(' / '),
            <span class="row-actions">
              <a href={withParams(base, { run: r.run_id })} data-run={r.run_id}>
                {t.show}
              </a>{' '}
              <a href={`${base}/runs/${r.run_id}.csv`} data-run-csv={r.run_id} download>
                {t.csv}
              </a>
            </span>,
          ])}
        />
        {d.runs.pagination.total_pages > 1 && (
          <nav class="pager" aria-label={t.runs}>
            <span class="muted">
              {common.pageOf(d.runs.pagination.page, d.runs.pagination.total_pages)}
            </span>{' '}
            {d.runs.pagination.page > 1 && (
              <a href={withParams(base, { runs_page: String(d.runs.pagination.page - 1) })}>
                {common.previous}
              </a>
            )}{' '}
            {d.runs.pagination.page < d.runs.pagination.total_pages && (
              <a href={withParams(base, { runs_page: String(d.runs.pagination.page + 1) })}>
                {common.next}
              </a>
            )}
          </nav>
        )}
      </section>
      <section aria-labelledby="payouts-h">
        <h2 id="payouts-h">
          {run ? (
            <>
              {t.payoutsOfRun('')}
              <code>{run}</code>
            </>
          ) : (
            t.allPayouts
          )}
        </h2>
        <form method="get" action={base} class="filters">
          {run && <input type="hidden" name="run" value={run} />}
          {d.filters.user && <input type="hidden" name="user" value={d.filters.user} />}
          <label>
            {t.status}{' '}
            <select name="status">
              <option value="">{t.any}</option>
              {PAYOUT_STATUSES.map((s) => (
                <option value={s} selected={d.filters.status === s}>
                  {(t as unknown as Record<string, string>)[s]}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="secondary">
            {t.filter}
          </button>
          {(run || d.filters.user) && <a href={base}>{t.allPayouts}</a>}
        </form>
        <p class="muted" data-payouts-total={String(d.payouts.pagination.total)}>
          {common.found(d.payouts.pagination.total)}
        </p>
        <p class="csv">
          <a
            href={withParams(`/org/${ctx.tenant.slug}/payouts.csv`, d.filters)}
            download
            data-link="payouts-csv"
          >
            {t.payoutsCsv}
          </a>
        </p>
        <DataTable
          caption={run ? t.payoutsOfRun(run) : t.allPayouts}
          hideCaption
          headers={[t.created, t.partner, t.amount, t.status, `${t.reference} / ${t.reason}`, '']}
          numeric={[2]}
          empty={common.nothing}
          rows={d.payouts.items.map((p) => [
            minute(p.created_at),
            <a href={partnerHref(p.user_id)}>
              {d.names.get(p.user_id)?.display_name ?? p.user_id}
            </a>,
            <span data-amount={String(p.amount_kopecks)}>
              {money(p.amount_kopecks, p.currency)}
            </span>,
            <PayoutStatus t={t} status={p.status} />,
            p.reference ?? p.failure_reason ?? '',
            <a href={`${base}/${p.payout_id}`} data-payout={p.payout_id}>
              {t.details}
            </a>,
          ])}
        />
        <Pager
          ctx={ctx}
          base={base}
          params={d.filters}
          page={d.payouts.pagination.page}
          totalPages={d.payouts.pagination.total_pages}
        />
      </section>
      {run && ctx.can('manager') && (
        <section aria-labelledby="settle-h">
          <h2 id="settle-h">{t.settleTitle}</h2>
          <p class="muted">{t.settleHint}</p>
          {d.settle?.errors.length ? (
            <div class="error" id="settle-errors">
              <p>{t.settleRefused}</p>
              <ul>
                {d.settle.errors.map((e) => (
                  <li data-settle-error={e.field}>{settleLine(ctx.fmt.lang, e)}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <form method="post" action={`${base}/runs/${run}/settle`} class="settle">
            <CsrfField value={ctx.csrf} />
            <div class="js-only" hidden>
              <label for="settle-file">{t.file}</label>
              <input type="file" accept=".csv,text/csv" id="settle-file" />
            </div>
            <label for="settle-csv">{t.csvText}</label>
            <textarea
              id="settle-csv"
              name="csv"
              rows={6}
              required
              spellcheck={false}
              aria-describedby={d.settle?.errors.length ? 'settle-errors' : undefined}
            >
              {d.settle?.csv ?? ''}
            </textarea>
            <button type="submit" data-action="settle">
              {t.settleSubmit}
            </button>
          </form>
        </section>
      )}
    </>,
  );
}
