import type { ComponentChildren } from 'preact';
import { formatDay } from '../common/i18n/format';
import { CsrfField } from '../common/pages/components';
import type { HtmlPage } from '../common/pages/page';
import type { TreeMember } from '../members/members.service';
import type { NotificationPreferences } from '../notifications/notifications.service';
import type { MaskedPayoutDetails } from '../payouts/payout-details/payout-details.service';
import {
  PayoutDetailsForm,
  type PayoutDetailsFormProps,
} from '../payouts/payout-details/payout-details.form';
import { LineChart } from '../pages/chart';
import { TextField } from '../pages/forms';
import { numberLocale } from '../pages/i18n';
import { DataTable, Pager } from '../pages/layout';
import type { Area, PortalCtx } from './portal-page';
import { portalPage } from './portal-page';
import type { EarningRow, HomeData, Page } from './portal.service';
import { QrCode } from './qr-code';
import { BountiesCard } from './portal-bounties';
import type { DeeplinkEntity } from '../deeplinks/deeplink.entity';
import type { LeadEntity } from '../leads/lead.entity';
import type { PayoutEntity } from '../payouts/payout.entity';

/** A day as the page's language writes it. */
const day = (ctx: PortalCtx, at: Date) => formatDay(at, numberLocale(ctx.fmt.lang, ctx.tenant));

const Pill = (props: { status: string; children: ComponentChildren }) => (
  <span class={`pill ${props.status}`} data-status={props.status}>
    {props.children}
  </span>
);

function Paged<T>(props: { ctx: PortalCtx; base: string; page: Page<T> }) {
  if (props.page.totalPages <= 1) return null;
  return (
    <Pager
      ctx={props.ctx}
      base={props.base}
      params={{}}
      page={props.page.page}
      totalPages={props.page.totalPages}
    />
  );
}

const framed = (
  ctx: PortalCtx,
  area: Area,
  title: string,
  body: ComponentChildren,
  messages: { notice?: string; error?: string; status?: number } = {},
): HtmlPage => portalPage(ctx, { title, area, ...messages }, body);

// ------------------------------------------------------------------------------------------------
// Home

export function homePage(ctx: PortalCtx, data: HomeData): HtmlPage {
  const { t, money, int } = ctx.fmt;
  const b = data.balance;
  const totals = data.days.reduce(
    (s, d) => ({
      clicks: s.clicks + d.clicks,
      leads: s.leads + d.leads,
      conversions: s.conversions + d.conversions,
    }),
    { clicks: 0, leads: 0, conversions: 0 },
  );
  const days = data.days.map((d) => d.day);
  const name = ctx.member.fullName ?? ctx.member.email ?? '';
  return framed(
    ctx,
    'home',
    name ? t.welcome(name) : t.home,
    <>
      {data.groupName !== null && (
        <p class="lead" data-field="group">
          {t.groupLine(data.groupName)}
        </p>
      )}
      <ul class="metrics" aria-label={`${t.available}, ${t.inPayout}, ${t.paid}`}>
        <li class="primary">
          <span class="label">{t.available}</span>
          <span class="value" data-metric="available">
            {money(b.availableKopecks, b.currency)}
          </span>
          <span class="hint">{t.availableHint}</span>
        </li>
        <li>
          <span class="label">{t.inPayout}</span>
          <span class="value" data-metric="in_payout">
            {money(b.inPayoutKopecks, b.currency)}
          </span>
          <span class="hint">{t.inPayoutHint}</span>
        </li>
        <li>
          <span class="label">{t.paid}</span>
          <span class="value" data-metric="paid">
            {money(b.paidKopecks, b.currency)}
          </span>
          <span class="hint">{t.paidHint}</span>
        </li>
      </ul>
      {data.others.length > 0 && (
        <section class="card" aria-labelledby="other-h">
          <h2 id="other-h">{t.otherCurrencies}</h2>
          <DataTable
            caption={t.otherCurrencies}
            hideCaption
            headers={[t.currency, t.available, t.inPayout, t.paid]}
            numeric={[1, 2, 3]}
            empty=""
            rows={data.others.map((o) => [
              o.currency,
              <span data-currency-metric={`${o.currency}:available`}>
                {money(o.availableKopecks, o.currency)}
              </span>,
              <span data-currency-metric={`${o.currency}:in_payout`}>
                {money(o.inPayoutKopecks, o.currency)}
              </span>,
              <span data-currency-metric={`${o.currency}:paid`}>
                {money(o.paidKopecks, o.currency)}
              </span>,
            ])}
          />
        </section>
      )}
      <BountiesCard ctx={ctx} bounties={data.bounties} />
      <section class="card" aria-labelledby="activity-h">
        <h2 id="activity-h">{t.last30}</h2>
        <ul class="counts">
          <li>
            <strong data-count="clicks">{int(totals.clicks)}</strong> <span>{t.clicks}</span>
          </li>
          <li>
            <strong data-count="leads">{int(totals.leads)}</strong> <span>{t.leads}</span>
          </li>
          <li>
            <strong data-count="conversions">{int(totals.conversions)}</strong>{' '}
            <span>{t.conversions}</span>
          </li>
        </ul>
        <LineChart
          id="activity"
          title={t.activityChart}
          desc={t.activityDesc(days[0], days[days.length - 1])}
          days={days}
          series={[
            { label: t.clicks, values: data.days.map((d) => d.clicks) },
            { label: t.leads, values: data.days.map((d) => d.leads) },
            { label: t.conversions, values: data.days.map((d) => d.conversions) },
          ]}
          formatY={(v) =>
            new Intl.NumberFormat(numberLocale(ctx.fmt.lang, ctx.tenant), {
              maximumFractionDigits: 1,
            }).format(v)
          }
        />
      </section>
    </>,
  );
}

// ------------------------------------------------------------------------------------------------
// Links

export interface LinkForm {
  target?: string;
  note?: string;
}

export function linksPage(
  ctx: PortalCtx,
  links: Page<DeeplinkEntity & { shortUrl: string }>,
  hosts: string[],
  options: { posted?: LinkForm; error?: string; notice?: string; status?: number } = {},
): HtmlPage {
  const { t, int } = ctx.fmt;
  return framed(
    ctx,
    'links',
    t.links,
    <>
      <section class="card" aria-labelledby="new-link-h">
        <h2 id="new-link-h">{t.newLink}</h2>
        <form method="post" action={`${ctx.base}/links`} class="inline-form" data-form="link">
          <CsrfField value={ctx.csrf} />
          <TextField
            id="target"
            name="target"
            label={t.target}
            value={options.posted?.target ?? (hosts[0] ? `https://${hosts[0]}/` : '')}
            error={options.error}
            autocomplete="url"
            maxLength={2048}
          />
          {hosts.length > 0 && (
            <p class="muted" id="target-hint">
              {t.targetHint(hosts.join(', '))}
            </p>
          )}
          <TextField
            id="note"
            name="note"
            label={t.note}
            value={options.posted?.note}
            autocomplete="off"
            maxLength={500}
          />
          <p>
            <button type="submit" data-action="submit">
              {t.create}
            </button>
          </p>
        </form>
      </section>
      <section class="card" aria-labelledby="links-h">
        <h2 id="links-h">{t.yourLinks}</h2>
        {links.rows.length === 0 && <p class="muted">{t.noLinks}</p>}
        {links.rows.map((link, i) => (
          <div class="link-row" data-link={link.code}>
            <div>
              <label for={`link-${i}`}>{t.shortLink}</label>
              <input id={`link-${i}`} type="text" readOnly value={link.shortUrl} data-copy />
              <p class="meta">
                <span class="clicks" data-clicks={String(link.clicksCount)}>
                  {t.clicks}: {int(link.clicksCount)}
                </span>
                {' · '}
                {t.destination} <span data-target>{link.targetId}</span>
                {' · '}
                {t.created} {day(ctx, link.createdAt)}
              </p>
              {link.recommendationText && (
                <p class="meta" data-note>
                  {link.recommendationText}
                </p>
              )}
            </div>
            <QrCode text={link.shortUrl} label={t.qr(link.shortUrl)} />
          </div>
        ))}
        <p class="muted">{links.rows.length > 0 && t.copyHint}</p>
        <Paged ctx={ctx} base={`${ctx.base}/links`} page={links} />
      </section>
    </>,
    options,
  );
}

// ------------------------------------------------------------------------------------------------
// Referrals

export function referralsPage(
  ctx: PortalCtx,
  leads: Page<LeadEntity>,
  tree: { levels: TreeMember[][]; truncated: boolean },
): HtmlPage {
  const { t } = ctx.fmt;
  const leadStatus = (s: string) => t.leadStatus[s] ?? s;
  const below = tree.levels.slice(1).flat();
  const children = new Map<string, TreeMember[]>();
  for (const m of below) {
    const list = children.get(m.referrerMemberId ?? '') ?? [];
    list.push(m);
    children.set(m.referrerMemberId ?? '', list);
  }
  const branch = (id: string): ComponentChildren => {
    const kids = children.get(id);
    if (!kids?.length) return null;
    return (
      <ul>
        {kids.map((m) => (
          <li data-member={m.id}>
            {m.fullName ?? t.level(m.depth - ctx.member.depth)}
            <span class="muted">{t.level(m.depth - ctx.member.depth)}</span>
            {branch(m.id)}
          </li>
        ))}
      </ul>
    );
  };
  return framed(
    ctx,
    'referrals',
    t.referrals,
    <>
      <section class="card" aria-labelledby="leads-h">
        <h2 id="leads-h">{t.yourLeads}</h2>
        <DataTable
          caption={t.yourLeads}
          hideCaption
          tableClass="stack"
          headers={[t.name, t.status, t.date]}
          empty={t.noLeads}
          rows={leads.rows.map((l) => [
            <span data-lead={l.id}>{l.contactName}</span>,
            <Pill status={l.status}>{leadStatus(l.status)}</Pill>,
            day(ctx, l.createdAt),
          ])}
        />
        <Paged ctx={ctx} base={`${ctx.base}/referrals`} page={leads} />
      </section>
      <section class="card" aria-labelledby="tree-h">
        <h2 id="tree-h">{t.yourTree}</h2>
        <p class="muted" data-downline={String(ctx.member.downlineCount)}>
          {ctx.member.downlineCount ? t.treeCount(ctx.member.downlineCount) : t.treeEmpty}
        </p>
        {below.length > 0 && (
          <ul class="tree" aria-label={t.yourTree}>
            <li>
              <strong>{t.you}</strong>
              {branch(ctx.member.id)}
            </li>
          </ul>
        )}
        {tree.truncated && <p class="muted">{t.treeTruncated}</p>}
      </section>
    </>,
  );
}

// ------------------------------------------------------------------------------------------------
// Earnings

export function earningsPage(ctx: PortalCtx, earnings: Page<EarningRow>): HtmlPage {
  const { t, money } = ctx.fmt;
  const statusLabel = (s: string) => t.bonusStatus[s] ?? s;
  return framed(
    ctx,
    'earnings',
    t.earnings,
    <section class="card" aria-labelledby="earnings-h">
      <h2 id="earnings-h">{t.yourEarnings}</h2>
      <DataTable
        caption={t.yourEarnings}
        hideCaption
        tableClass="stack"
        headers={[t.date, t.source, t.rule, t.status, t.amount]}
        numeric={[4]}
        empty={t.noEarnings}
        rows={earnings.rows.map(({ bonus, note }) => [
          day(ctx, bonus.createdAt),
          t.sources[bonus.sourceType] ?? bonus.sourceType,
          <span data-rule>
            {[bonus.tier ? t.tier(bonus.tier) : '', bonus.explanation ?? '', note ?? '']
              .filter(Boolean)
              .join(' · ') || '—'}
          </span>,
          <Pill status={bonus.status}>{statusLabel(bonus.status)}</Pill>,
          <span data-bonus={bonus.id} data-amount={String(bonus.amountKopecks)}>
            {money(bonus.amountKopecks, bonus.currency)}
          </span>,
        ])}
      />
      <Paged ctx={ctx} base={`${ctx.base}/earnings`} page={earnings} />
    </section>,
  );
}

// ------------------------------------------------------------------------------------------------
// Payouts

export function payoutsPage(
  ctx: PortalCtx,
  payouts: Page<PayoutEntity>,
  details: MaskedPayoutDetails | null,
  options: {
    posted?: PayoutDetailsFormProps['posted'];
    notice?: string;
    status?: number;
  } = {},
): HtmlPage {
  const { t, money } = ctx.fmt;
  return framed(
    ctx,
    'payouts',
    t.payouts,
    <>
      <section class="card" aria-labelledby="payouts-h">
        <h2 id="payouts-h">{t.payoutHistory}</h2>
        <DataTable
          caption={t.payoutHistory}
          hideCaption
          tableClass="stack"
          headers={[t.date, t.status, t.reference, t.amount]}
          numeric={[3]}
          empty={t.noPayouts}
          rows={payouts.rows.map((p) => [
            day(ctx, p.paidAt ?? p.createdAt),
            <Pill status={p.status}>{t.payoutStatus[p.status] ?? p.status}</Pill>,
            p.reference ?? '—',
            <span data-payout={p.id} data-amount={String(p.amountKopecks)}>
              {money(p.amountKopecks, p.currency)}
            </span>,
          ])}
        />
        <Paged ctx={ctx} base={`${ctx.base}/payouts`} page={payouts} />
      </section>
      <div class="card">
        <PayoutDetailsForm
          action={`${ctx.base}/payouts/details`}
          csrf={ctx.csrf}
          lang={ctx.fmt.lang}
          current={details}
          posted={options.posted}
          notice={options.notice}
        />
      </div>
    </>,
    { status: options.status },
  );
}

// ------------------------------------------------------------------------------------------------
// Notifications

/** The types a member's portal offers (the application decisions go to applicants, not members). */
export const MEMBER_TYPES = [
  'bonus.pending',
  'bonus.approved',
  'payout.paid',
  'downline.joined',
  'bounty.reached',
] as const;

export function notificationsPage(
  ctx: PortalCtx,
  prefs: NotificationPreferences,
  options: { notice?: string; error?: string; status?: number } = {},
): HtmlPage {
  const { t } = ctx.fmt;
  return framed(
    ctx,
    'notifications',
    t.notifications,
    <section class="card" aria-labelledby="prefs-h">
      <h2 id="prefs-h">{t.emailNotifications}</h2>
      <p class="muted">{t.notificationsLead}</p>
      <form method="post" action={`${ctx.base}/notifications`} data-form="notifications">
        <CsrfField value={ctx.csrf} />
        <div class="table">
          <table class="prefs">
            <caption class="sr-only">{t.notifications}</caption>
            <tbody>
              {MEMBER_TYPES.map((type) => (
                <tr>
                  <th scope="row">
                    <label for={`pref-${type}`}>{t.types[type]}</label>
                  </th>
                  <td>
                    <select id={`pref-${type}`} name={type} data-pref={type}>
                      {(['instant', 'daily', 'off'] as const).map((mode) => (
                        <option value={mode} selected={prefs[type] === mode}>
                          {t.modes[mode]}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <button type="submit" data-action="submit">
          {t.save}
        </button>
      </form>
    </section>,
    options,
  );
}
