import { MAX_PHASES, MAX_UPLINE_TIERS, tierName } from '../../tenants/program';
import type { Lang } from '../../pages/i18n';
import { fieldName, type PhaseRow, type ProgramFormValues, type TierRow } from './program.form';
import type { FormError } from './program-errors';
import { phaseTitle, type ProgramTexts } from './program.i18n';
import type { PromotionValues } from './promotion.form';

/** What the editor's parts need of the page. */
export interface EditorCtx {
  t: ProgramTexts;
  lang: Lang;
  currency: string;
  disabled: boolean;
  errors: FormError[];
}

/** The errors said at one anchor of the form, right under its field. */
export function FieldErrors({ ctx, on }: { ctx: EditorCtx; on: string }) {
  const mine = ctx.errors.filter((e) => e.on === on);
  if (!mine.length) return null;
  return (
    <p class="error field-error" id={`err-${on}`} data-error-on={on}>
      {mine.map((e) => e.message).join('; ')}
    </p>
  );
}

/** `aria-invalid`/`aria-describedby` for an input whose anchor has errors. */
export const invalidAt = (ctx: EditorCtx, on: string) =>
  ctx.errors.some((e) => e.on === on)
    ? { 'aria-invalid': 'true' as const, 'aria-describedby': `err-${on}` }
    : {};

/** An add/remove button: a form post with its `intent` (program.script.ts does it in place). */
function IntentButton(props: { value: string; label: string; text: string; class?: string }) {
  return (
    <button
      type="submit"
      name="intent"
      value={props.value}
      class={props.class ?? 'plain'}
      aria-label={props.label}
      data-intent={props.value}
      formnovalidate
    >
      {props.text}
    </button>
  );
}

function TierRowFields(props: {
  ctx: EditorCtx;
  p: number;
  i: number;
  row: TierRow;
  count: number;
  /** Names the phase in the remove button's label (`(Phase 2)`), when there are phases. */
  suffix: string;
}) {
  const { ctx, p, i, row } = props;
  const { t, disabled } = ctx;
  const name = tierName(i);
  const on = `p${p}_t${i}`;
  const input = (field: string, value: string, label: string, data: string, at = on) => (
    <label class="cell">
      <span class="cell-label">{label}</span>
      <input
        name={field}
        inputMode="decimal"
        value={value}
        disabled={disabled}
        aria-label={`${label}: ${name}`}
        {...{ [data]: String(i) }}
        {...invalidAt(ctx, at)}
      />
    </label>
  );
  return (
    <li class="tier-row" data-tier-row={String(i)}>
      <span class="tier-name" id={`tier-${p}-${i}`}>{`${i + 1}. ${name}`}</span>
      {input(fieldName.percent(p, i), row.percent, `${t.percent}, %`, 'data-tier-percent')}
      {input(fieldName.fixed(p, i), row.fixed, `${t.fixed}, ${ctx.currency}`, 'data-tier-fixed')}
      {i === 0 ? (
        <span class="cell muted referrer-note">{t.referrerRow}</span>
      ) : (
        <>
          {input(
            fieldName.qualifyMin(p, i),
            row.qualify_min,
            `${t.qualifyMin}, ${ctx.currency}`,
            'data-tier-qmin',
            `${on}_q`,
          )}
          {input(
            fieldName.qualifyDays(p, i),
            row.qualify_days,
            t.qualifyDays,
            'data-tier-qdays',
            `${on}_q`,
          )}
        </>
      )}
      <span class="cell remove">
        {!disabled && props.count > 1 && (
          <IntentButton
            value={`remove_tier_${p}_${i}`}
            label={`${t.removeTier(name)}${props.suffix}`}
            text="×"
          />
        )}
      </span>
      <FieldErrors ctx={ctx} on={on} />
      <FieldErrors ctx={ctx} on={`${on}_q`} />
    </li>
  );
}

/** One phase as a card: how long it lasts, its tiers as rows, add/remove. */
export function PhaseCard(props: {
  ctx: EditorCtx;
  p: number;
  phase: PhaseRow;
  phased: boolean;
  phases: number;
}) {
  const { ctx, p, phase, phased } = props;
  const { t, disabled } = ctx;
  const n = p + 1;
  const count = /^\d{1,6}$/.test(phase.count.trim()) ? Number(phase.count) : undefined;
  const title = phased ? phaseTitle(t.phaseTitles, ctx.lang, n, phase.limit, count) : t.tiers;
  return (
    <fieldset class="phase-card" data-phase={String(p)} aria-describedby={`phase-${p}-h`}>
      <legend id={`phase-${p}-h`} data-phase-title>
        {title}
      </legend>
      {phased && (
        <div class="phase-limit">
          <label data-count-label>
            {t.lasts}{' '}
            <input
              name={fieldName.count(p)}
              data-phase-count
              inputMode="numeric"
              value={phase.count}
              disabled={disabled}
              {...invalidAt(ctx, `phase_${p}`)}
            />
          </label>
          <label>
            <span class="sr-only">{t.unit}</span>
            <select
              name={fieldName.limit(p)}
              data-phase-limit
              disabled={disabled}
              {...invalidAt(ctx, `phase_${p}`)}
            >
              <option value="months" selected={phase.limit === 'months'}>
                {t.forMonths}
              </option>
              <option value="conversions" selected={phase.limit === 'conversions'}>
                {t.forConversions}
              </option>
              <option value="" selected={phase.limit === ''}>
                {t.forEver}
              </option>
            </select>
          </label>
          {!disabled && props.phases > 1 && (
            <IntentButton
              value={`remove_phase_${p}`}
              label={t.removePhase(n)}
              text={t.removePhase(n)}
              class="plain danger"
            />
          )}
          <FieldErrors ctx={ctx} on={`phase_${p}`} />
        </div>
      )}
      <div class="tier-head" aria-hidden="true">
        <span>{t.tier}</span>
        <span>{`${t.percent}, %`}</span>
        <span>{`${t.fixed}, ${ctx.currency}`}</span>
        <span>{`${t.qualifyMin}, ${ctx.currency}`}</span>
        <span>{t.qualifyDays}</span>
        <span />
      </div>
      <ol class="tier-rows">
        {phase.tiers.map((row, i) => (
          <TierRowFields
            ctx={ctx}
            p={p}
            i={i}
            row={row}
            count={phase.tiers.length}
            suffix={phased ? ` (${t.phase(n)})` : ''}
          />
        ))}
      </ol>
      <FieldErrors ctx={ctx} on={`phase_${p}_tiers`} />
      {!disabled && phase.tiers.length <= MAX_UPLINE_TIERS && (
        <IntentButton
          value={`add_tier_${p}`}
          label={`${t.addTier} (${title})`}
          text={`+ ${t.addTier}`}
        />
      )}
    </fieldset>
  );
}

/** The program's own fields: bonus per lead, hours, compression, phases. */
export function ProgramFields({ ctx, values }: { ctx: EditorCtx; values: ProgramFormValues }) {
  const { t, disabled } = ctx;
  const phased = values.phased || values.phases.length > 1 || !!values.phases[0]?.limit;
  return (
    <>
      <div class="filters">
        <label>
          {`${t.leadBonus}, ${ctx.currency}`}{' '}
          <input
            id="lead_bonus"
            name="lead_bonus"
            inputMode="decimal"
            value={values.lead_bonus}
            disabled={disabled}
            {...invalidAt(ctx, 'lead_bonus')}
          />
        </label>
        <label>
          {t.grace}{' '}
          <input
            id="grace_period_hours"
            name="grace_period_hours"
            inputMode="numeric"
            value={values.grace_period_hours}
            disabled={disabled}
            {...invalidAt(ctx, 'grace_period_hours')}
          />
        </label>
      </div>
      <FieldErrors ctx={ctx} on="lead_bonus" />
      <FieldErrors ctx={ctx} on="grace_period_hours" />
      <p class="muted">{t.tiersHint}</p>
      {phased && <input type="hidden" name="phased" value="1" />}
      <FieldErrors ctx={ctx} on="phases" />
      <div class="phases" data-phases>
        {values.phases.map((phase, p) => (
          <PhaseCard ctx={ctx} p={p} phase={phase} phased={phased} phases={values.phases.length} />
        ))}
      </div>
      {!disabled && values.phases.length < MAX_PHASES && (
        <p class="add-phase">
          <IntentButton value="add_phase" label={t.addPhase} text={`+ ${t.addPhase}`} />{' '}
          <span class="muted">{t.addPhaseHint}</span>
        </p>
      )}
      <label class="check">
        <input
          type="checkbox"
          id="compression"
          name="compression"
          checked={values.compression}
          disabled={disabled}
          aria-describedby="compression-hint"
        />{' '}
        {t.compression}
      </label>
      <p class="muted" id="compression-hint">
        {t.compressionHint}
      </p>
    </>
  );
}

/** A group's promotion: the target group and the thresholds (PATCH …/groups/:id `promote_to`). */
export function PromotionFields(props: {
  ctx: EditorCtx;
  values: PromotionValues;
  groups: { group_id: string; name: string }[];
}) {
  const { ctx, values } = props;
  const { t, disabled } = ctx;
  const field = (name: string, label: string, value: string, mode: 'decimal' | 'numeric') => (
    <label>
      {label}{' '}
      <input
        id={name}
        name={name}
        inputMode={mode}
        value={value}
        disabled={disabled}
        {...invalidAt(ctx, name)}
      />
    </label>
  );
  return (
    <fieldset class="phase-card promotion" data-promotion>
      <legend>{t.promotion}</legend>
      <p class="muted">{t.promotionHint}</p>
      <div class="filters">
        <label>
          {t.promoteTarget}{' '}
          <select
            id="promote_group"
            name="promote_group"
            disabled={disabled}
            {...invalidAt(ctx, 'promote_group')}
          >
            <option value="" selected={!values.target}>
              {t.noPromotion}
            </option>
            {values.target && !props.groups.some((g) => g.group_id === values.target) && (
              <option value={values.target} selected>
                {values.target}
              </option>
            )}
            {props.groups.map((g) => (
              <option value={g.group_id} selected={values.target === g.group_id}>
                {g.name}
              </option>
            ))}
          </select>
        </label>
        {field('promote_conversions', t.promoteConversions, values.min_conversions, 'numeric')}
        {field(
          'promote_revenue',
          `${t.promoteRevenue}, ${ctx.currency}`,
          values.min_revenue,
          'decimal',
        )}
        {field('promote_days', t.promoteDays, values.window_days, 'numeric')}
      </div>
      <FieldErrors ctx={ctx} on="promote_group" />
      <FieldErrors ctx={ctx} on="promote_conversions" />
      <FieldErrors ctx={ctx} on="promote_revenue" />
      <FieldErrors ctx={ctx} on="promote_days" />
    </fieldset>
  );
}
