import type { Lang } from '../../pages/i18n';
import { programPhases, type Program } from '../../tenants/program';
import { previewCascade } from './program.form';
import { phaseTitle, type ProgramTexts } from './program.i18n';

/** What the preview needs of the page. */
export interface PreviewCtx {
  t: ProgramTexts;
  lang: Lang;
  money: (kopecks: number) => string;
  percent: (bp: number) => string;
}

/**
 * The cascade preview, a block of its own (`.program-panels` holds it, so that a sibling panel
 * sits beside it on a desktop and under it on a phone): for each phase of the form's program,
 * what each tier earns on the example amount, which tiers ask for qualification, and whether
 * tiers compress. `program` undefined: the form is wrong (the preview says so). program.script.ts
 * rebuilds the same markup as the form is typed in.
 */
export function ProgramPreview(props: {
  ctx: PreviewCtx;
  program?: Program;
  amountKopecks: number;
}) {
  const { ctx, program, amountKopecks } = props;
  const { t, money } = ctx;
  const phases = program ? programPhases(program) : [];
  return (
    <section aria-labelledby="preview-h" class="preview panel" aria-live="polite">
      <h2 id="preview-h" data-preview-caption>
        {t.previewTitle(money(amountKopecks))}
      </h2>
      <p class="muted">{t.previewHint}</p>
      <p class="error" data-preview-state hidden={!!program}>
        {t.invalid}
      </p>
      <div data-preview-table hidden={!program}>
        <p class="muted" data-preview-compression>
          {program?.compression ? t.compressionOn : t.compressionOff}
        </p>
        <div data-preview-phases>
          {phases.map((phase, p) => {
            const rows = previewCascade(phase.tiers, amountKopecks);
            const total = rows.reduce((sum, r) => sum + r.amount_kopecks, 0);
            const limit = phase.months ? 'months' : phase.conversions ? 'conversions' : '';
            const title = program?.phases
              ? phaseTitle(t.phaseTitles, ctx.lang, p + 1, limit, phase.months ?? phase.conversions)
              : undefined;
            return (
              <div class="table preview-phase" data-preview-phase={String(p)}>
                <table>
                  {title && <caption data-preview-phase-title>{title}</caption>}
                  <thead>
                    <tr>
                      <th scope="col">{t.tier}</th>
                      <th scope="col">{t.rule}</th>
                      <th scope="col" class="num">
                        {t.earns}
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {phase.tiers.map((tier, i) => (
                      <tr data-preview-row={String(i)}>
                        <th scope="row">{`${i + 1}. ${tier.tier}`}</th>
                        <td data-preview-rule>
                          {tier.percent_bp !== undefined
                            ? `${ctx.percent(tier.percent_bp)} %`
                            : money(tier.fixed_kopecks)}
                          {tier.qualify && (
                            <span class="qualify" data-preview-qualify>
                              {t.needsQualify
                                .replace('{amount}', money(tier.qualify.min_personal_sales_kopecks))
                                .replace('{days}', String(tier.qualify.window_days))}
                            </span>
                          )}
                        </td>
                        <td
                          class="num"
                          data-preview-amount
                          data-value={String(rows[i].amount_kopecks)}
                        >
                          {money(rows[i].amount_kopecks)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                  <tfoot>
                    <tr>
                      <th scope="row" colSpan={2}>
                        {t.totalPaid}
                      </th>
                      <td class="num" data-preview-total data-value={String(total)}>
                        {money(total)}
                      </td>
                    </tr>
                    <tr>
                      <th scope="row" colSpan={2}>
                        {t.remains}
                      </th>
                      <td
                        class="num"
                        data-preview-remains
                        data-value={String(amountKopecks - total)}
                      >
                        {money(amountKopecks - total)}
                      </td>
                    </tr>
                  </tfoot>
                </table>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
