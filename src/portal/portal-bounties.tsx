import type { MemberBounty } from '../bounties/bounties.service';
import { formatDay } from '../common/i18n/format';
import type { Lang } from '../pages/i18n';
import { numberLocale } from '../pages/i18n';
import type { PortalCtx } from './portal-page';

const EN = {
  heading: 'Bounties',
  intro: 'A one-time bonus when your own sales in the period reach the goal.',
  sales: (n: string) => `${n} sales`,
  reached: (day: string) => `Reached on ${day}`,
  until: (day: string) => `until ${day}`,
  openEnded: 'no end date',
  bonus: 'Bonus',
};

const RU: typeof EN = {
  heading: 'Цели',
  intro: 'Разовый бонус, когда ваши собственные продажи за период достигнут цели.',
  sales: (n) => `${n} продаж`,
  reached: (day) => `Достигнута ${day}`,
  until: (day) => `до ${day}`,
  openEnded: 'без даты окончания',
  bonus: 'Бонус',
};

const TEXTS: Record<Lang, typeof EN> = { en: EN, ru: RU };

/**
 * The partner's bounties on Home (docs/partners.md, "The partner portal"): each with its progress
 * as a bar and a figure, and whether and when they reached it. Nothing when there are none.
 */
export function BountiesCard(props: { ctx: PortalCtx; bounties: MemberBounty[] }) {
  const { ctx, bounties } = props;
  if (!bounties.length) return <></>;
  const b = TEXTS[ctx.fmt.lang];
  const { money, int } = ctx.fmt;
  const day = (at: Date) => formatDay(at, numberLocale(ctx.fmt.lang, ctx.tenant));
  return (
    <section class="card" aria-labelledby="bounties-h" data-section="bounties">
      <h2 id="bounties-h">{b.heading}</h2>
      <p class="muted">{b.intro}</p>
      <ul class="bounties">
        {bounties.map(({ bounty, value, reachedAt }) => {
          const sales = bounty.metric === 'conversions';
          const figure = (n: number) => (sales ? int(n) : money(n, bounty.currency));
          const id = `bounty-${bounty.id}`;
          return (
            <li data-bounty-id={bounty.id} data-reached={reachedAt ? 'true' : 'false'}>
              <strong id={id}>{bounty.name}</strong>{' '}
              <span class="muted">{bounty.endsAt ? b.until(day(bounty.endsAt)) : b.openEnded}</span>
              <br />
              <progress
                max={bounty.threshold}
                value={Math.min(value, bounty.threshold)}
                aria-labelledby={id}
              />{' '}
              <span data-field="progress">
                {figure(value)} /{' '}
                {sales ? b.sales(int(bounty.threshold)) : figure(bounty.threshold)}
              </span>
              <br />
              <span>
                {b.bonus}: {money(bounty.amountKopecks, bounty.currency)}
              </span>
              {reachedAt && (
                <>
                  {' · '}
                  <strong data-field="reached">{b.reached(day(reachedAt))}</strong>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
