import type { ConsoleCtx } from '../org-page';
import { CsrfField } from '../../common/pages/components';
import { ScriptData } from '../../common/pages/inline';
import type { HtmlPage } from '../../common/pages/page';
import type { FieldError } from '../../common/errors/domain-error';
import type { OfferResponse } from '../../offers/dto/offer.response';
import { tierName } from '../../tenants/program';
import { numberLocale } from '../../pages/i18n';
import { withParams, TableSection } from '../../pages/layout';
import { consolePage } from '../console-page';
import { parseMoney, parsePercent, type PreviewRow, type ProgramFormValues } from './program.form';
import { PROGRAM_TEXTS } from './program.i18n';
import { PROGRAM_SCRIPT } from './program.script';

export interface ProgramPageData {
  offers: OfferResponse[];
  /** The offer whose program the form edits; undefined: the tenant's default. */
  offer?: OfferResponse;
  /** The offer follows the default program (its form shows the default's values). */
  useDefault: boolean;
  values: ProgramFormValues;
  /** The cascade of the form's program for its example amount; undefined when the form is wrong. */
  preview?: { rows: PreviewRow[]; amount_kopecks: number };
  errors: FieldError[];
}

/** `/org/:slug/program`: the offers, the program form and the cascade preview. */
export function programPage(
  ctx: ConsoleCtx,
  d: ProgramPageData,
  shown: { notice?: string; error?: string; status?: number },
): HtmlPage {
  const { t: common, money } = ctx.fmt;
  const t = PROGRAM_TEXTS[ctx.fmt.lang];
  const locale = numberLocale(ctx.fmt.lang, ctx.tenant);
  const percentFmt = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const base = `/org/${ctx.tenant.slug}/program`;
  const canEdit = ctx.can('manager');
  // As the Admin API: the default program is saved by owners, an offer's by managers.
  const canSave = d.offer ? canEdit : ctx.can('owner');
  const title = d.offer ? t.offerProgram(d.offer.name) : t.defaultProgram;
  const notice =
    shown.notice === 'saved'
      ? t.saved
      : shown.notice === 'previewed'
        ? t.previewed
        : shown.notice === 'phased'
          ? t.phased
          : shown.notice === 'ruled'
            ? t.ruled
            : shown.notice;
  const error =
    shown.error ??
    (d.errors.length ? d.errors.map((e) => `${e.field}: ${e.message}`).join('; ') : undefined);
  const ruleOf = (row: { percent: string; fixed: string }) => {
    const bp = row.percent.trim() ? parsePercent(row.percent) : undefined;
    if (bp !== undefined) return `${percentFmt.format(bp / 100)} %`;
    const fixed = row.fixed.trim() ? parseMoney(row.fixed) : undefined;
    return fixed !== undefined ? money(fixed) : '';
  };
  const amounts = new Map((d.preview?.rows ?? []).map((r) => [r.tier, r.amount_kopecks]));
  const total = (d.preview?.rows ?? []).reduce((sum, r) => sum + r.amount_kopecks, 0);
  const previewAmount = d.preview?.amount_kopecks ?? parseMoney(d.values.amount) ?? 0;
  const disabled = !canEdit;
  const fields = (
    <>
      <div class="filters">
        <label>
          {`${t.leadBonus}, ${ctx.fmt.currencySymbol}`}{' '}
          <input
            id="lead_bonus"
            name="lead_bonus"
            inputMode="decimal"
            value={d.values.lead_bonus}
            disabled={disabled}
          />
        </label>
        <label>
          {t.grace}{' '}
          <input
            id="grace_period_hours"
            name="grace_period_hours"
            inputMode="numeric"
            value={d.values.grace_period_hours}
            disabled={disabled}
          />
        </label>
      </div>
      <fieldset class="tiers">
        <legend>{t.tiers}</legend>
        <p class="muted">{t.tiersHint}</p>
        <div class="table">
          <table>
            <thead>
              <tr>
                <th scope="col">{t.tier}</th>
                <th scope="col">{t.percent}</th>
                <th scope="col">{`${t.fixed}, ${ctx.fmt.currencySymbol}`}</th>
              </tr>
            </thead>
            <tbody>
              {d.values.tiers.map((row, i) => (
                <tr>
                  <th scope="row">
                    <span id={`tier-${i}`}>{`${i + 1}. ${tierName(i)}`}</span>
                  </th>
                  <td>
                    <input
                      name={`percent_${i}`}
                      data-tier-percent={String(i)}
                      inputMode="decimal"
                      aria-label={`${t.percent}: ${tierName(i)}`}
                      value={row.percent}
                      disabled={disabled}
                    />
                  </td>
                  <td>
                    <input
                      name={`fixed_${i}`}
                      data-tier-fixed={String(i)}
                      inputMode="decimal"
                      aria-label={`${t.fixed}: ${tierName(i)}`}
                      value={row.fixed}
                      disabled={disabled}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </fieldset>
    </>
  );
  const amountField = (
    <label>
      {`${t.exampleAmount}, ${ctx.fmt.currencySymbol}`}{' '}
      <input id="amount" name="amount" inputMode="decimal" value={d.values.amount} />
    </label>
  );
  return consolePage(
    ctx,
    {
      title: common.program,
      area: 'program',
      notice,
      error,
      status: shown.status,
      script: PROGRAM_SCRIPT,
    },
    <>
      <ScriptData
        id="program-preview-data"
        value={{
          locale,
          currency: ctx.tenant.currency,
          invalid: t.invalid,
          title: t.previewTitle('{amount}'),
        }}
      />
      <TableSection
        id="offers"
        caption={t.offers}
        headers={[t.offer, t.program, '']}
        empty={common.nothing}
        rows={[
          [
            <strong>{t.defaultProgram}</strong>,
            t.ownProgram,
            d.offer ? <a href={base}>{t.edit}</a> : <strong>{t.edit}</strong>,
          ],
          ...d.offers.map((o) => [
            o.name,
            o.program ? t.ownProgram : t.followsDefault,
            d.offer?.offer_id === o.offer_id ? (
              <strong>{t.edit}</strong>
            ) : (
              <a href={withParams(base, { offer: o.offer_id })} data-offer={o.offer_id}>
                {t.edit}
              </a>
            ),
          ]),
        ]}
      />
      <section aria-labelledby="program-h">
        <h2 id="program-h">{title}</h2>
        {canEdit ? (
          <form method="post" action={base} id="program-form" class="program-form">
            <CsrfField value={ctx.csrf} />
            {d.offer && <input type="hidden" name="offer" value={d.offer.offer_id} />}
            {d.offer && (
              <label class="check">
                <input type="checkbox" name="use_default" checked={d.useDefault} /> {t.useDefault}
              </label>
            )}
            {fields}
            {amountField}
            <div class="actions">
              <button
                type="submit"
                name="intent"
                value="preview"
                class="secondary"
                data-action="preview"
              >
                {t.preview}
              </button>
              {canSave ? (
                <button type="submit" name="intent" value="save" data-action="save">
                  {t.save}
                </button>
              ) : (
                <span class="muted">{t.ownerNote}</span>
              )}
            </div>
          </form>
        ) : (
          <>
            <p class="muted">{t.viewerNote}</p>
            {fields}
            <form method="get" action={base} class="filters">
              {d.offer && <input type="hidden" name="offer" value={d.offer.offer_id} />}
              {amountField}
              <button type="submit" class="secondary" data-action="preview">
                {t.preview}
              </button>
            </form>
          </>
        )}
      </section>
      <section aria-labelledby="preview-h" class="preview" aria-live="polite">
        <h2 id="preview-h" data-preview-caption>
          {t.previewTitle(money(previewAmount))}
        </h2>
        <p class="muted">{t.previewHint}</p>
        <p class="error" data-preview-state hidden={!!d.preview}>
          {t.invalid}
        </p>
        <div
          class="table"
          tabIndex={0}
          role="region"
          aria-labelledby="preview-h"
          data-preview-table
          hidden={!d.preview}
        >
          <table>
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
              {d.values.tiers.map((row, i) => {
                const kopecks = amounts.get(tierName(i));
                return (
                  <tr data-preview-row={String(i)} hidden={kopecks === undefined}>
                    <th scope="row">{`${i + 1}. ${tierName(i)}`}</th>
                    <td data-preview-rule>{ruleOf(row)}</td>
                    <td class="num" data-preview-amount data-value={String(kopecks ?? 0)}>
                      {money(kopecks ?? 0)}
                    </td>
                  </tr>
                );
              })}
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
                <td class="num" data-preview-remains data-value={String(previewAmount - total)}>
                  {money(previewAmount - total)}
                </td>
              </tr>
            </tfoot>
          </table>
        </div>
      </section>
    </>,
  );
}
