import type { BountyResponse } from '../../bounties/dto/bounty.response';
import type { ProgressRow } from '../../bounties/dto/bounty.response';
import { CsrfField } from '../../common/pages/components';
import type { HtmlPage } from '../../common/pages/page';
import { DataTable, Pager } from '../../pages/layout';
import { consolePage } from '../console-page';
import type { ConsoleCtx } from '../org-page';
import { BOUNTIES_TEXTS, type BountiesTexts } from './bounties.i18n';

export interface BountiesModel {
  groups: { id: string; name: string }[];
  items: { bounty: BountyResponse; top: ProgressRow[] }[];
  page: number;
  totalPages: number;
  notice?: string;
  error?: string;
}

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The console's bounties page (docs/console.md): each bounty with its period, threshold, bonus and
 * the partners furthest on (reached ones marked), and for managers the form to create one (a
 * refused form comes back with what is wrong, beside the form) and a button to end a running one.
 */
export function bountiesPage(ctx: ConsoleCtx, model: BountiesModel): HtmlPage {
  const b = BOUNTIES_TEXTS[ctx.fmt.lang];
  const base = `/org/${ctx.tenant.slug}/bounties`;
  const manager = ctx.can('manager');
  const notice =
    model.notice === 'created' ? b.created : model.notice === 'ended' ? b.ended : undefined;
  return consolePage(
    ctx,
    { title: b.title, area: 'bounties', notice },
    <>
      <p class="muted">{b.intro}</p>
      {manager ? (
        <CreateForm ctx={ctx} model={model} base={base} b={b} />
      ) : (
        <p class="muted">{b.managersOnly}</p>
      )}
      {!model.items.length && <p class="muted">{b.empty}</p>}
      {model.items.map(({ bounty, top }) => (
        <Bounty ctx={ctx} bounty={bounty} top={top} model={model} base={base} b={b} />
      ))}
      {model.totalPages > 1 && (
        <Pager ctx={ctx} base={base} params={{}} page={model.page} totalPages={model.totalPages} />
      )}
    </>,
  );
}

function CreateForm(props: {
  ctx: ConsoleCtx;
  model: BountiesModel;
  base: string;
  b: BountiesTexts;
}) {
  const { ctx, model, base, b } = props;
  return (
    <section aria-labelledby="bounty-new-h">
      <h2 id="bounty-new-h">{b.create}</h2>
      {model.error && (
        <p class="error" role="alert" id="bounty-form-error">
          {model.error}
        </p>
      )}
      <form
        method="post"
        action={base}
        class="stack-form"
        aria-describedby={model.error ? 'bounty-form-error' : undefined}
      >
        <CsrfField value={ctx.csrf} />
        <p>
          <label for="bounty-name">{b.name}</label>
          <input id="bounty-name" name="name" required maxLength={200} />
        </p>
        <p>
          <label for="bounty-group">{b.group}</label>
          <select id="bounty-group" name="group_id">
            <option value="">{b.allPartners}</option>
            {model.groups.map((g) => (
              <option value={g.id}>{g.name}</option>
            ))}
          </select>
        </p>
        <p>
          <label for="bounty-metric">{b.metric}</label>
          <select id="bounty-metric" name="metric">
            <option value="conversions">{b.conversions}</option>
            <option value="revenue_kopecks">{b.revenue}</option>
          </select>
        </p>
        <p>
          <label for="bounty-threshold">{b.threshold}</label>
          <input id="bounty-threshold" name="threshold" inputMode="numeric" required />
        </p>
        <p>
          <label for="bounty-amount">{b.amount}</label>
          <input id="bounty-amount" name="amount" inputMode="decimal" required />
        </p>
        <p>
          <label for="bounty-currency">{b.currency}</label>
          <input
            id="bounty-currency"
            name="currency"
            value={ctx.tenant.currency}
            required
            maxLength={3}
          />
        </p>
        <p>
          <label for="bounty-starts">{b.startsAt}</label>
          <input id="bounty-starts" name="starts_at" type="datetime-local" required />
        </p>
        <p>
          <label for="bounty-ends">{b.endsAt}</label>
          <input id="bounty-ends" name="ends_at" type="datetime-local" />
        </p>
        <button type="submit" data-action="create-bounty">
          {b.submit}
        </button>
      </form>
    </section>
  );
}

function Bounty(props: {
  ctx: ConsoleCtx;
  bounty: BountyResponse;
  top: ProgressRow[];
  model: BountiesModel;
  base: string;
  b: BountiesTexts;
}) {
  const { ctx, bounty, top, model, base, b } = props;
  const { fmt } = ctx;
  const heading = `bounty-${bounty.bounty_id}`;
  const group = model.groups.find((g) => g.id === bounty.group_id)?.name ?? b.allPartners;
  const figure = (value: number) =>
    bounty.metric === 'conversions' ? String(value) : fmt.money(value, bounty.currency);
  const running = bounty.ends_at === null || Date.parse(bounty.ends_at) > Date.now();
  return (
    <section class="bounty" aria-labelledby={heading} data-bounty-id={bounty.bounty_id}>
      <h2 id={heading}>{bounty.name}</h2>
      <dl class="profile">
        <dt>{b.group}</dt>
        <dd>{group}</dd>
        <dt>{b.period}</dt>
        <dd>
          {utc(bounty.starts_at)} – {bounty.ends_at ? utc(bounty.ends_at) : b.openEnded}
        </dd>
        <dt>{b.metric}</dt>
        <dd>
          {bounty.metric === 'conversions' ? b.conversions : b.revenue}: {figure(bounty.threshold)}
        </dd>
        <dt>{b.amount}</dt>
        <dd>{fmt.money(bounty.amount_kopecks, bounty.currency)}</dd>
      </dl>
      <p class="muted">{b.reachedBy(bounty.reached_count)}</p>
      <DataTable
        caption={`${b.progress}: ${bounty.name}`}
        headers={[b.partner, b.progress, b.reached]}
        numeric={[1]}
        empty={b.noProgress}
        rows={top.map((row) => [
          <a href={`/org/${ctx.tenant.slug}/partners/${row.user_id}`}>
            {row.full_name ?? row.user_id}
          </a>,
          `${figure(row.value)} / ${figure(bounty.threshold)}`,
          row.reached_at ? `✓ ${utc(row.reached_at)}` : b.notYet,
        ])}
        rowClasses={top.map((row) => (row.reached_at ? 'reached' : undefined))}
      />
      {ctx.can('manager') && running && (
        <form method="post" action={`${base}/${bounty.bounty_id}/end`}>
          <CsrfField value={ctx.csrf} />
          <button type="submit" class="plain" data-action="end-bounty">
            {b.end}
          </button>
        </form>
      )}
    </section>
  );
}
