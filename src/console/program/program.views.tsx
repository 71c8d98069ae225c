import type { ConsoleCtx } from '../org-page';
import { CsrfField } from '../../common/pages/components';
import { ScriptData } from '../../common/pages/inline';
import type { HtmlPage } from '../../common/pages/page';
import type { GroupResponse } from '../../groups/dto/group.response';
import type { OfferResponse } from '../../offers/dto/offer.response';
import type { Program } from '../../tenants/program';
import { numberLocale } from '../../pages/i18n';
import { withParams, TableSection } from '../../pages/layout';
import { consolePage } from '../console-page';
import { type EditorCtx, FieldErrors, ProgramFields, PromotionFields } from './program-editor';
import type { FormError } from './program-errors';
import { parseMoney, type ProgramFormValues } from './program.form';
import { ProgramPreview } from './program-preview';
import { BacktestPanel } from './program-backtest';
import type { BacktestResponse } from '../../backtest/dto/backtest.dto';
import { PROGRAM_TEXTS } from './program.i18n';
import { PROGRAM_SCRIPT } from './program.script';
import type { PromotionValues } from './promotion.form';

/** Whose program the page edits: the tenant's default, an offer's or a group's. */
export type ProgramTarget =
  | { kind: 'default' }
  | { kind: 'offer'; offer: OfferResponse }
  | { kind: 'group'; group: GroupResponse };

export interface ProgramPageData {
  offers: OfferResponse[];
  groups: GroupResponse[];
  target: ProgramTarget;
  /** The offer or group follows the default program (its form shows the default's values). */
  useDefault: boolean;
  values: ProgramFormValues;
  /** The group's promotion (a group target only). */
  promotion?: PromotionValues;
  /** The form's program for the preview; undefined when the form is wrong. */
  program?: Program;
  errors: FormError[];
  /** The draft's backtests of the last 30 and 90 days; undefined when the form is wrong. */
  backtests?: { days: number; result: BacktestResponse }[];
}

/** `/org/:slug/program`: the programs, the program form and the cascade preview. */
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
  // As the Admin API: the default program is saved by owners, an offer's and a group's by managers.
  const canSave = d.target.kind === 'default' ? ctx.can('owner') : canEdit;
  const { target } = d;
  const title =
    target.kind === 'offer'
      ? t.offerProgram(target.offer.name)
      : target.kind === 'group'
        ? t.groupProgram(target.group.name)
        : t.defaultProgram;
  const notice =
    shown.notice === 'saved' ? t.saved : shown.notice === 'previewed' ? t.previewed : shown.notice;
  const error =
    shown.error ??
    (d.errors.length ? d.errors.map((e) => `${e.field}: ${e.message}`).join('; ') : undefined);
  const editor: EditorCtx = {
    t,
    lang: ctx.fmt.lang,
    currency: ctx.fmt.currencySymbol,
    disabled: !canEdit,
    errors: d.errors,
  };
  const previewAmount = parseMoney(d.values.amount) ?? 0;
  const current = (kind: string, id?: string) =>
    target.kind === kind &&
    (kind === 'default' ||
      (target.kind === 'offer' && target.offer.offer_id === id) ||
      (target.kind === 'group' && target.group.group_id === id));
  const editLink = (kind: string, id: string | undefined, href: string, data: object) =>
    current(kind, id) ? (
      <strong aria-current="true">{t.edit}</strong>
    ) : (
      <a href={href} {...data}>
        {t.edit}
      </a>
    );
  const amountField = (
    <label>
      {`${t.exampleAmount}, ${ctx.fmt.currencySymbol}`}{' '}
      <input id="amount" name="amount" inputMode="decimal" value={d.values.amount} />
    </label>
  );
  const hiddenTarget = (
    <>
      {target.kind === 'offer' && (
        <input type="hidden" name="offer" value={target.offer.offer_id} />
      )}
      {target.kind === 'group' && (
        <input type="hidden" name="group" value={target.group.group_id} />
      )}
    </>
  );
  const otherGroups = d.groups.filter(
    (g) => target.kind !== 'group' || g.group_id !== target.group.group_id,
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
          lang: ctx.fmt.lang,
          locale,
          currency: ctx.tenant.currency,
          title: t.previewTitle('{amount}'),
          titles: t.phaseTitles,
          needsQualify: t.needsQualify,
          compressionOn: t.compressionOn,
          compressionOff: t.compressionOff,
          labels: {
            tier: t.tier,
            rule: t.rule,
            earns: t.earns,
            total: t.totalPaid,
            remains: t.remains,
          },
        }}
      />
      <TableSection
        id="targets"
        caption={t.targets}
        headers={[t.target, t.program, '']}
        empty={common.nothing}
        rows={[
          [
            <strong>{t.defaultProgram}</strong>,
            t.ownProgram,
            editLink('default', undefined, base, {}),
          ],
          ...d.offers.map((o) => [
            <>
              <span class="muted">{`${t.offer}: `}</span>
              {o.name}
            </>,
            o.program ? t.ownProgram : t.followsDefault,
            editLink('offer', o.offer_id, withParams(base, { offer: o.offer_id }), {
              'data-offer': o.offer_id,
            }),
          ]),
          ...d.groups.map((g) => [
            <>
              <span class="muted">{`${t.group}: `}</span>
              {g.name}
            </>,
            g.program ? t.ownProgram : t.followsDefault,
            editLink('group', g.group_id, withParams(base, { group: g.group_id }), {
              'data-group': g.group_id,
            }),
          ]),
        ]}
      />
      <section aria-labelledby="program-h" class="program-editor">
        <h2 id="program-h">{title}</h2>
        {canEdit ? (
          <form method="post" action={base} id="program-form" class="program-form" novalidate>
            {/* Enter in a field previews, whatever add/remove button comes first. */}
            <button
              type="submit"
              name="intent"
              value="preview"
              class="sr-only"
              tabIndex={-1}
              aria-hidden="true"
            >
              {t.preview}
            </button>
            <CsrfField value={ctx.csrf} />
            {hiddenTarget}
            {target.kind !== 'default' && (
              <label class="check">
                <input type="checkbox" name="use_default" checked={d.useDefault} />{' '}
                {target.kind === 'offer' ? t.useDefaultOffer : t.useDefaultGroup}
              </label>
            )}
            {target.kind !== 'default' && d.useDefault && <p class="muted">{t.useDefaultHint}</p>}
            <ProgramFields ctx={editor} values={d.values} />
            {target.kind === 'group' && d.promotion && (
              <PromotionFields ctx={editor} values={d.promotion} groups={otherGroups} />
            )}
            <div class="filters">{amountField}</div>
            <FieldErrors ctx={editor} on="amount" />
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
            <ProgramFields ctx={editor} values={d.values} />
            {target.kind === 'group' && d.promotion && (
              <PromotionFields ctx={editor} values={d.promotion} groups={otherGroups} />
            )}
            <form method="get" action={base} class="filters">
              {hiddenTarget}
              {amountField}
              <button type="submit" class="secondary" data-action="preview">
                {t.preview}
              </button>
            </form>
          </>
        )}
      </section>
      <div class="program-panels" id="program-panels">
        <ProgramPreview
          ctx={{ t, lang: ctx.fmt.lang, money, percent: (bp) => percentFmt.format(bp / 100) }}
          program={d.program}
          amountKopecks={previewAmount}
        />
        {d.backtests && (
          <BacktestPanel
            lang={ctx.fmt.lang}
            slug={ctx.tenant.slug}
            money={money}
            runs={d.backtests}
          />
        )}
      </div>
    </>,
  );
}
