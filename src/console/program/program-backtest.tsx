import type { BacktestResponse } from '../../backtest/dto/backtest.dto';
import type { Lang } from '../../pages/i18n';
import { DataTable } from '../../pages/layout';

const TEXTS = {
  en: {
    title: 'Backtest: what this program would have paid',
    hint: 'The conversions of the last 30 and 90 days replayed under the form’s program, over today’s tree, beside what they paid. Updated by Preview; figures are kept for 10 minutes.',
    period: 'Period',
    days: (n: number) => `Last ${n} days`,
    conversions: 'Conversions',
    paid: 'Paid',
    draft: 'Would pay',
    delta: 'Difference',
    partners: 'Partners whose pay changes most (90 days)',
    partner: 'Partner',
    none: 'No conversion of this program in the last 90 days.',
    skipped: (n: number) => `${n} conversion(s) in other currencies left out.`,
  },
  ru: {
    title: 'Бэктест: сколько заплатила бы эта программа',
    hint: 'Конверсии последних 30 и 90 дней, пересчитанные по программе из формы на сегодняшнем дереве, рядом с тем, что по ним начислено. Обновляется кнопкой «Предпросмотр»; цифры хранятся 10 минут.',
    period: 'Период',
    days: (n: number) => `Последние ${n} дней`,
    conversions: 'Конверсий',
    paid: 'Начислено',
    draft: 'Было бы',
    delta: 'Разница',
    partners: 'Партнёры с самым большим изменением (90 дней)',
    partner: 'Партнёр',
    none: 'За последние 90 дней у этой программы не было конверсий.',
    skipped: (n: number) => `Не учтено конверсий в других валютах: ${n}.`,
  },
} satisfies Record<Lang, unknown>;

/**
 * Beside the preview (SPEC 15): the backtest of the form's program over the last 30 and 90 days
 * (BacktestService), and the partners the 90 days change most, with links to their pages.
 */
export function BacktestPanel(props: {
  lang: Lang;
  slug: string;
  money: (kopecks: number) => string;
  runs: { days: number; result: BacktestResponse }[];
}) {
  const t = TEXTS[props.lang];
  const { money } = props;
  const signed = (kopecks: number) => (kopecks > 0 ? `+${money(kopecks)}` : money(kopecks));
  const longest = props.runs.at(-1)?.result;
  return (
    <section aria-labelledby="backtest-h" class="preview panel" data-backtest>
      <h2 id="backtest-h">{t.title}</h2>
      <p class="muted">{t.hint}</p>
      {!longest?.conversions ? (
        <p class="muted">{t.none}</p>
      ) : (
        <>
          <DataTable
            caption={t.title}
            hideCaption
            tableClass="stack"
            headers={[t.period, t.conversions, t.paid, t.draft, t.delta]}
            numeric={[1, 2, 3, 4]}
            empty={t.none}
            rows={props.runs.map(({ days, result }) => [
              t.days(days),
              String(result.conversions),
              money(result.actual.commission_kopecks),
              money(result.draft.commission_kopecks),
              <strong data-backtest-delta={String(days)}>{signed(result.delta_kopecks)}</strong>,
            ])}
          />
          {longest.skipped > 0 && <p class="muted">{t.skipped(longest.skipped)}</p>}
          {longest.partners.length > 0 && (
            <DataTable
              caption={t.partners}
              tableClass="stack"
              headers={[t.partner, t.paid, t.draft, t.delta]}
              numeric={[1, 2, 3]}
              empty=""
              rows={longest.partners.slice(0, 5).map((p) => [
                <a href={`/org/${props.slug}/partners/${p.user_id}`}>
                  <code>{p.user_id}</code>
                </a>,
                money(p.actual_kopecks),
                money(p.draft_kopecks),
                signed(p.draft_kopecks - p.actual_kopecks),
              ])}
            />
          )}
        </>
      )}
    </section>
  );
}
