import type { ConsoleCtx } from '../org-page';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { PartnerPayouts } from '../payouts/payout.views';
import { DataTable, TableSection } from '../../pages/layout';
import { consolePage } from '../console-page';
import { ListPager, ListSummary } from '../../pages/list-parts';
import { RECORD_TEXTS } from '../records.i18n';
import { type BanState, BanSection } from './member-ban.views';
import { PartnerPrivacySection } from '../privacy/privacy.views';
import { PARTNER_SORTS, type PartnerSort } from './partners.dto';
import type {
  PartnerDetailResponse,
  PartnerListResponse,
  PartnerResponse,
} from './partners.response';

/** `2026-11-21T09:30:00.000Z` → `2026-11-21 09:30`. */
const minute = (iso: string) => iso.slice(0, 16).replace('T', ' ');
const nameOf = (p: Pick<PartnerResponse, 'full_name' | 'email' | 'external_id'>) =>
  p.full_name ?? p.email ?? p.external_id;

function Status({ ctx, active }: { ctx: ConsoleCtx; active: boolean }) {
  const { t } = ctx.fmt;
  return <span class={active ? 'badge on' : 'badge off'}>{active ? t.active : t.inactive}</span>;
}

/** The partners list: search, sort, pages, CSV of the same search. */
export function partnersPage(
  ctx: ConsoleCtx,
  filters: { q?: string; sort?: string },
  list: PartnerListResponse | undefined,
  shown: { notice?: string; error?: string },
): HtmlPage {
  const { t, int } = ctx.fmt;
  const base = `/org/${ctx.tenant.slug}/partners`;
  const sortLabel: Record<PartnerSort, string> = {
    joined: t.sortJoined,
    oldest: t.sortOldest,
    name: t.sortName,
  };
  return consolePage(
    ctx,
    { title: t.partners, area: 'partners', ...shown },
    <>
      <form method="get" action={base} class="search" role="search">
        <label>
          {t.searchHint} <input type="search" name="q" value={filters.q ?? ''} maxLength={200} />
        </label>
        <label>
          {t.sort}{' '}
          <select name="sort">
            {PARTNER_SORTS.map((s) => (
              <option value={s} selected={(filters.sort ?? 'joined') === s}>
                {sortLabel[s]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t.search}</button>
      </form>
      {list && (
        <>
          <ListSummary
            ctx={ctx}
            pagination={list.pagination}
            csv={`/org/${ctx.tenant.slug}/partners.csv`}
            filters={filters}
          />
          <DataTable
            caption={t.partners}
            hideCaption
            headers={[t.partner, t.email, t.externalId, t.joined, t.leads, t.clicks, t.status]}
            numeric={[4, 5]}
            empty={t.nothing}
            rows={list.items.map((p) => [
              <a href={`${base}/${p.user_id}`} data-partner={p.user_id}>
                {nameOf(p)}
              </a>,
              p.email ?? '',
              p.external_id,
              minute(p.joined_at),
              int(p.leads_count),
              int(p.clicks_count),
              <Status ctx={ctx} active={p.is_active} />,
            ])}
          />
          <ListPager ctx={ctx} base={base} filters={filters} pagination={list.pagination} />
        </>
      )}
    </>,
  );
}

/** A partner: profile, actions, upline chain, first line, links, leads, bonuses, balance. */
export function partnerPage(
  ctx: ConsoleCtx,
  d: PartnerDetailResponse,
  shown: { notice?: string; error?: string },
  ban: BanState = { banned_at: null, ban_reason: null },
  erasedAt: string | null = null,
): HtmlPage {
  const { t, int, money } = ctx.fmt;
  const base = `/org/${ctx.tenant.slug}/partners`;
  const u = d.user;
  const notice =
    shown.notice === 'activated'
      ? t.activated
      : shown.notice === 'deactivated'
        ? t.deactivated
        : shown.notice === 'banned'
          ? RECORD_TEXTS[ctx.fmt.lang].banned
          : shown.notice === 'unbanned'
            ? RECORD_TEXTS[ctx.fmt.lang].unbanned
            : shown.notice;
  const link = (id: string, name: string) => <a href={`${base}/${id}`}>{name}</a>;
  return consolePage(
    ctx,
    { title: nameOf(u), area: 'partners', notice, error: shown.error },
    <>
      <section aria-labelledby="profile-h">
        <h2 id="profile-h">{t.profile}</h2>
        <dl class="profile">
          <dt>{t.status}</dt>
          <dd data-status={u.is_active ? 'active' : 'inactive'}>
            <Status ctx={ctx} active={u.is_active} />
          </dd>
          <dt>{t.email}</dt>
          <dd>{u.email ?? t.none}</dd>
          <dt>{t.externalId}</dt>
          <dd>{u.external_id}</dd>
          <dt>ID</dt>
          <dd>
            <code>{u.user_id}</code> · <code>{u.service_user_id}</code>
          </dd>
          <dt>{t.role}</dt>
          <dd>{u.role}</dd>
          <dt>{t.joined}</dt>
          <dd>{minute(u.joined_at)}</dd>
          <dt>{t.downline}</dt>
          <dd>{int(u.downline_count)}</dd>
          <dt>{t.leads}</dt>
          <dd>{int(u.leads_count)}</dd>
          <dt>{t.clicks}</dt>
          <dd>{int(u.clicks_count)}</dd>
        </dl>
        {ban.banned_at || erasedAt ? null : ctx.can('manager') ? (
          <form
            method="post"
            action={`${base}/${u.user_id}/${u.is_active ? 'deactivate' : 'activate'}`}
            class="actions"
          >
            <CsrfField value={ctx.csrf} />
            <button
              type="submit"
              class={u.is_active ? 'danger' : undefined}
              data-action={u.is_active ? 'deactivate' : 'activate'}
            >
              {u.is_active ? t.deactivate : t.activate}
            </button>
          </form>
        ) : (
          <p class="muted">{t.viewerNote}</p>
        )}
        <BanSection ctx={ctx} userId={u.user_id} ban={ban} />
        <PartnerPrivacySection ctx={ctx} userId={u.user_id} erasedAt={erasedAt} />
      </section>
      <TableSection
        id="balance"
        caption={t.balance}
        headers={[t.currency, t.pendingBalance, t.clearedBalance]}
        numeric={[1, 2]}
        empty={t.nothing}
        rows={d.balances.map((b) => [
          b.currency,
          money(b.pending_kopecks, b.currency),
          money(b.approved_kopecks, b.currency),
        ])}
      />
      <PartnerPayouts
        ctx={ctx}
        balances={d.payout_balances}
        payouts={d.payouts}
        memberId={u.user_id}
        details={d.payout_details}
      />
      <section aria-labelledby="upline-h">
        <h2 id="upline-h">{t.upline}</h2>
        {d.upline.length ? (
          <ol class="upline">
            {d.upline.map((m) => (
              <li>
                {link(m.user_id, m.display_name)}{' '}
                {!m.is_active && <Status ctx={ctx} active={false} />}
              </li>
            ))}
          </ol>
        ) : (
          <p class="muted">{t.none}</p>
        )}
      </section>
      <TableSection
        id="first"
        heading={`${t.firstLine} (${int(d.first_line.total)})`}
        caption={t.firstLine}
        headers={[t.partner, t.joined, t.downline, t.status]}
        numeric={[2]}
        empty={t.nothing}
        rows={d.first_line.items.map((p) => [
          link(p.user_id, nameOf(p)),
          minute(p.joined_at),
          int(p.downline_count),
          <Status ctx={ctx} active={p.is_active} />,
        ])}
      />
      <TableSection
        id="links"
        caption={t.links}
        headers={[t.shortLink, t.target, t.clicks, t.created]}
        numeric={[2]}
        empty={t.nothing}
        rows={d.links.map((l) => [
          <code>{`/s/${l.code}`}</code>,
          `${l.target_type}: ${l.target_id}`,
          int(l.clicks_count),
          minute(l.created_at),
        ])}
      />
      <TableSection
        id="leads"
        heading={`${t.leads} (${int(d.leads.total)})`}
        caption={t.leads}
        headers={[t.contact, t.status, t.created]}
        empty={t.nothing}
        rows={d.leads.items.map((l) => [l.contact_name, l.status, minute(l.created_at)])}
      />
      <TableSection
        id="bonuses"
        heading={`${t.bonuses} (${int(d.bonuses.total)})`}
        caption={t.bonuses}
        headers={[t.amount, t.status, t.source, t.created]}
        numeric={[0]}
        empty={t.nothing}
        rows={d.bonuses.items.map((b) => [
          money(b.amount_kopecks, b.currency),
          b.status,
          `${b.source_type}${b.tier ? ` · ${b.tier}` : ''}`,
          minute(b.created_at),
        ])}
      />
    </>,
  );
}
