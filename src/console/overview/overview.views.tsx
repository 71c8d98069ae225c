import type { ConsoleCtx } from '../org-page';
import type { HtmlPage } from '../../common/pages/page';
import { addDays, type Period, periodDays, today } from '../stats/stats.service';
import type { StatsResponse } from '../stats/stats.response';
import { FunnelSteps, LineChart } from '../../pages/chart';
import { DataTable, withParams, TableSection } from '../../pages/layout';
import { consolePage } from '../console-page';

export const SHORTCUTS = [7, 30, 90] as const;

/** The overview (docs/console.md): period picker, KPIs, daily charts, funnel and top partners. */
export function overviewPage(
  ctx: ConsoleCtx,
  stats: StatsResponse | undefined,
  period: Period,
  shown: { error?: string; status?: number },
): HtmlPage {
  const { t, int, money, compactMoney } = ctx.fmt;
  const base = `/org/${ctx.tenant.slug}`;
  const end = today();
  const shortcut = (n: number) => ({ from: addDays(end, -(n - 1)), to: end });
  const current = (n: number) => {
    const s = shortcut(n);
    return s.from === period.from && s.to === period.to;
  };
  const picker = (
    <section aria-labelledby="period-h">
      <h2 id="period-h">{t.period}</h2>
      <form method="get" action={base} class="period">
        <label>
          {t.from} <input type="date" name="from" value={period.from} required />
        </label>
        <label>
          {t.to} <input type="date" name="to" value={period.to} required />
        </label>
        <button type="submit">{t.show}</button>
      </form>
      <ul class="shortcuts">
        {SHORTCUTS.map((n) => (
          <li>
            <a href={withParams(base, shortcut(n))} aria-current={current(n) ? 'true' : undefined}>
              {t.lastDays(n)}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
  if (!stats) return consolePage(ctx, { title: t.overview, area: 'overview', ...shown }, picker);
  const k = stats.totals;
  const kpis: [string, string, number, string][] = [
    ['clicks', t.clicks, k.clicks, int(k.clicks)],
    ['new_partners', t.newPartners, k.new_partners, int(k.new_partners)],
    ['leads', t.leads, k.leads, int(k.leads)],
    ['conversions', t.conversions, k.conversions, int(k.conversions)],
    ['revenue_kopecks', t.revenue, k.revenue_kopecks, money(k.revenue_kopecks)],
    [
      'commission_pending_kopecks',
      t.commissionPending,
      k.commission_pending_kopecks,
      money(k.commission_pending_kopecks),
    ],
    [
      'commission_approved_kopecks',
      t.commissionApproved,
      k.commission_approved_kopecks,
      money(k.commission_approved_kopecks),
    ],
    [
      'commission_paid_kopecks',
      t.commissionPaid,
      k.commission_paid_kopecks,
      money(k.commission_paid_kopecks),
    ],
  ];
  const days = stats.series.map((d) => d.date);
  const f = stats.funnel;
  const percent = (a: number, b: number) =>
    b
      ? new Intl.NumberFormat(ctx.fmt.lang === 'ru' ? 'ru-RU' : 'en-US', {
          style: 'percent',
          maximumFractionDigits: 1,
        }).format(a / b)
      : '—';
  return consolePage(
    ctx,
    { title: t.overview, area: 'overview', ...shown },
    <>
      {picker}
      <section aria-labelledby="kpi-h">
        <h2 id="kpi-h" class="sr-only">
          {`${stats.from} — ${stats.to}`}
        </h2>
        <p class="muted">{`${stats.from} — ${stats.to} · ${int(periodDays(period))} · UTC`}</p>
        <ul class="kpis">
          {kpis.map(([key, label, value, text]) => (
            <li data-kpi={key} data-value={String(value)}>
              <span class="label">{label}</span>
              <span class="value">{text}</span>
            </li>
          ))}
        </ul>
      </section>
      <section class="charts" aria-label={t.chart}>
        <LineChart
          id="clicks"
          title={t.clicksChart}
          desc={t.clicksDesc(stats.from, stats.to)}
          days={days}
          series={[{ label: t.clicks, values: stats.series.map((d) => d.clicks) }]}
          formatY={int}
        />
        <LineChart
          id="activity"
          title={t.activityChart}
          desc={t.activityDesc(stats.from, stats.to)}
          days={days}
          series={[
            { label: t.newPartners, values: stats.series.map((d) => d.new_partners) },
            { label: t.leads, values: stats.series.map((d) => d.leads) },
            { label: t.conversions, values: stats.series.map((d) => d.conversions) },
          ]}
          formatY={int}
        />
        <LineChart
          id="money"
          title={t.moneyChart(ctx.fmt.currencySymbol)}
          desc={t.moneyDesc(stats.from, stats.to)}
          days={days}
          series={[
            { label: t.revenue, values: stats.series.map((d) => d.revenue_kopecks) },
            { label: t.commission, values: stats.series.map((d) => d.commission_kopecks) },
          ]}
          formatY={compactMoney}
        />
        <section class="funnel" aria-labelledby="funnel-h" data-funnel={JSON.stringify(f)}>
          <h2 id="funnel-h">{t.funnel}</h2>
          <FunnelSteps
            steps={[
              { label: t.clicks, value: f.clicks, text: int(f.clicks) },
              { label: t.leads, value: f.leads, text: int(f.leads) },
              { label: t.convertedLeads, value: f.converted_leads, text: int(f.converted_leads) },
            ]}
            percentText={(i) =>
              i === 1 ? percent(f.leads, f.clicks) : percent(f.converted_leads, f.leads)
            }
            ofPrevious={t.ofPrevious}
          />
        </section>
      </section>
      <details>
        <summary>{t.dailyTable}</summary>
        <DataTable
          caption={t.dailyTable}
          hideCaption
          headers={[
            t.day,
            t.clicks,
            t.newPartners,
            t.leads,
            t.conversions,
            t.revenue,
            t.commission,
          ]}
          numeric={[1, 2, 3, 4, 5, 6]}
          empty={t.nothing}
          rows={stats.series.map((d) => [
            d.date,
            int(d.clicks),
            int(d.new_partners),
            int(d.leads),
            int(d.conversions),
            money(d.revenue_kopecks),
            money(d.commission_kopecks),
          ])}
        />
      </details>
      <TableSection
        id="top"
        caption={t.topPartners}
        headers={['#', t.partner, t.commission]}
        numeric={[0, 2]}
        empty={t.nothing}
        rows={stats.top_partners.map((p, i) => [
          String(i + 1),
          <a href={`${base}/partners/${p.user_id}`} data-top-partner={p.user_id}>
            {p.display_name}
          </a>,
          <span data-value={String(p.commission_kopecks)}>{money(p.commission_kopecks)}</span>,
        ])}
      />
    </>,
  );
}
