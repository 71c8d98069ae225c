import { cascade } from '../../conversions/cascade';
import {
  MAX_PHASES,
  MAX_UPLINE_TIERS,
  phaseErrors,
  type Program,
  type ProgramPhase,
  programPhases,
  type ProgramTier,
  tierErrors,
  tierName,
} from '../../tenants/program';
import { apiFormErrors, FORM_ERRORS, type FormError, type FormErrorTexts } from './program-errors';

/** The preview's amount when the page is given none (docs/console.md: `?amount_kopecks=`, 1,000,000). */
export const DEFAULT_PREVIEW_KOPECKS = 1_000_000;
const MAX_KOPECKS = 10_000_000_000_000;

/** One tier row of the form, as typed: percent or fixed amount, and an upline's qualification. */
export interface TierRow {
  percent: string;
  fixed: string;
  /** The least personal sales, in the currency (`500.00`); empty: no qualification. */
  qualify_min: string;
  qualify_days: string;
}

export type PhaseLimit = '' | 'months' | 'conversions';

/** One phase of the form: how long it pays (`limit` empty: for ever) and its tiers. */
export interface PhaseRow {
  limit: PhaseLimit;
  count: string;
  tiers: TierRow[];
}

/** What the program form holds, as text (what the person typed, shown back on a refusal). */
export interface ProgramFormValues {
  lead_bonus: string;
  grace_period_hours: string;
  compression: boolean;
  /** Saved as `phases` (else as `tiers` when there is one phase for ever). */
  phased: boolean;
  phases: PhaseRow[];
  amount: string;
}

/** `1234.5` / `1234,50` → 123450; undefined when it is not an amount with at most 2 decimals. */
export function parseMoney(text: string): number | undefined {
  const m = /^(\d{1,13})(?:[.,](\d{1,2}))?$/.exec(text.trim().replace(/[\s\u00a0]/g, ''));
  if (!m) return undefined;
  const kopecks = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return kopecks <= MAX_KOPECKS ? kopecks : undefined;
}

/** `10` / `2,5` percent → basis points 1000 / 250; undefined beyond 100 or 2 decimals. */
export function parsePercent(text: string): number | undefined {
  const m = /^(\d{1,3})(?:[.,](\d{1,2}))?$/.exec(text.trim());
  if (!m) return undefined;
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return bp <= 10000 ? bp : undefined;
}

/** A whole number of at most `digits` digits, else undefined. */
const parseWhole = (text: string, digits = 6) =>
  new RegExp(`^\\d{1,${digits}}$`).test(text.trim()) ? Number(text.trim()) : undefined;

/** 123450 → `1234.50`; the form writes amounts with a dot, whatever the locale. */
export const moneyText = (kopecks: number) =>
  `${Math.floor(kopecks / 100)}.${String(kopecks % 100).padStart(2, '0')}`;
/** 250 → `2.5`. */
export const percentText = (bp: number) => String(bp / 100);

const EMPTY_TIER: TierRow = { percent: '', fixed: '', qualify_min: '', qualify_days: '' };

const tierRow = (t: ProgramTier): TierRow => ({
  percent: t.percent_bp !== undefined ? percentText(t.percent_bp) : '',
  fixed: t.percent_bp === undefined ? moneyText(t.fixed_kopecks) : '',
  qualify_min: t.qualify ? moneyText(t.qualify.min_personal_sales_kopecks) : '',
  qualify_days: t.qualify ? String(t.qualify.window_days) : '',
});

/** The form of a stored program: every phase, tier and rule it has (nothing is kept aside). */
export function formValues(program: Program, amountKopecks: number): ProgramFormValues {
  return {
    lead_bonus: moneyText(program.lead_bonus_kopecks),
    grace_period_hours: String(program.grace_period_hours),
    compression: program.compression === true,
    phased: !!program.phases,
    phases: programPhases(program).map((phase) => ({
      limit:
        phase.months !== undefined
          ? 'months'
          : phase.conversions !== undefined
            ? 'conversions'
            : '',
      count: String(phase.months ?? phase.conversions ?? ''),
      tiers: phase.tiers.map(tierRow),
    })),
    amount: moneyText(amountKopecks),
  };
}

/** The names of the form's fields (docs/console.md). */
export const fieldName = {
  limit: (p: number) => `phase_${p}_limit`,
  count: (p: number) => `phase_${p}_count`,
  percent: (p: number, i: number) => `p${p}_percent_${i}`,
  fixed: (p: number, i: number) => `p${p}_fixed_${i}`,
  qualifyMin: (p: number, i: number) => `p${p}_qmin_${i}`,
  qualifyDays: (p: number, i: number) => `p${p}_qdays_${i}`,
};

/**
 * The form's fields from a posted body. Phases and tiers are read while their fields are there,
 * one past the API's limits, so that the API's own "at most" errors can be shown.
 */
export function valuesFromBody(body: Record<string, unknown>): ProgramFormValues {
  const text = (name: string) => (typeof body[name] === 'string' ? String(body[name]) : '');
  const phases: PhaseRow[] = [];
  for (let p = 0; p <= MAX_PHASES; p++) {
    if (!(fieldName.limit(p) in body) && !(fieldName.percent(p, 0) in body)) break;
    const tiers: TierRow[] = [];
    for (let i = 0; i <= MAX_UPLINE_TIERS + 1; i++) {
      if (!(fieldName.percent(p, i) in body) && !(fieldName.fixed(p, i) in body)) break;
      tiers.push({
        percent: text(fieldName.percent(p, i)),
        fixed: text(fieldName.fixed(p, i)),
        qualify_min: text(fieldName.qualifyMin(p, i)),
        qualify_days: text(fieldName.qualifyDays(p, i)),
      });
    }
    const limit = text(fieldName.limit(p));
    phases.push({
      limit: limit === 'months' || limit === 'conversions' ? limit : '',
      count: text(fieldName.count(p)),
      tiers,
    });
  }
  return {
    lead_bonus: text('lead_bonus'),
    grace_period_hours: text('grace_period_hours'),
    compression: body.compression === 'on',
    phased: body.phased === '1',
    phases: phases.length ? phases : [{ limit: '', count: '', tiers: [{ ...EMPTY_TIER }] }],
    amount: text('amount'),
  };
}

/**
 * The form after an add/remove button (`intent`): `add_phase`, `remove_phase_<p>`,
 * `add_tier_<p>`, `remove_tier_<p>_<i>`; undefined for any other intent. A new phase starts with
 * the last phase's tiers, and the phase before it, if it lasted for ever, gets 12 months.
 */
export function withIntent(v: ProgramFormValues, intent: string): ProgramFormValues | undefined {
  const phases = v.phases.map((phase) => ({ ...phase, tiers: [...phase.tiers] }));
  let m: RegExpExecArray | null;
  if (intent === 'add_phase') {
    if (phases.length >= MAX_PHASES) return { ...v, phases };
    const last = phases[phases.length - 1];
    if (!last.limit) phases[phases.length - 1] = { ...last, limit: 'months', count: '12' };
    phases.push({ limit: '', count: '', tiers: last.tiers.map((t) => ({ ...t })) });
    return { ...v, phased: true, phases };
  }
  if ((m = /^remove_phase_(\d+)$/.exec(intent))) {
    if (phases.length > 1) phases.splice(Number(m[1]), 1);
    return { ...v, phases };
  }
  if ((m = /^add_tier_(\d+)$/.exec(intent))) {
    const phase = phases[Number(m[1])];
    if (phase && phase.tiers.length <= MAX_UPLINE_TIERS) phase.tiers.push({ ...EMPTY_TIER });
    return { ...v, phases };
  }
  if ((m = /^remove_tier_(\d+)_(\d+)$/.exec(intent))) {
    const phase = phases[Number(m[1])];
    if (phase && phase.tiers.length > 1) phase.tiers.splice(Number(m[2]), 1);
    return { ...v, phases };
  }
  return undefined;
}

type ParsedProgram = { program: Program; amount: number } | { errors: FormError[] };

/**
 * The program the form describes, or what is wrong with it, each error on its field (`on`, the
 * anchors of program-errors.ts) in the page's language. The form's own checks say what is not a
 * number; the Admin API's (tierErrors, phaseErrors) then say the rest, translated.
 */
export function programFromValues(
  v: ProgramFormValues,
  e: FormErrorTexts = FORM_ERRORS.en,
): ParsedProgram {
  const errors: FormError[] = [];
  const err = (on: string, field: string, message: string) => errors.push({ on, field, message });
  const leadBonus = parseMoney(v.lead_bonus || '0');
  if (leadBonus === undefined) err('lead_bonus', e.leadBonus, e.money);
  const grace = parseWhole(v.grace_period_hours, 4);
  if (grace === undefined || grace > 24 * 365) err('grace_period_hours', e.grace, e.hours);
  const amount = parseMoney(v.amount || moneyText(DEFAULT_PREVIEW_KOPECKS));
  if (!amount) err('amount', e.amount, e.positive);
  const phased = v.phased || v.phases.length > 1 || !!v.phases[0]?.limit;
  const phases: ProgramPhase[] = v.phases.map((row, p) => {
    const phaseLabel = e.phase(p + 1);
    const phase: ProgramPhase = { tiers: tiersOf(row.tiers, p, phased, e, err) };
    if (row.limit) {
      const count = parseWhole(row.count);
      if (count === undefined) err(`phase_${p}`, phaseLabel, e.count);
      else phase[row.limit] = count;
    }
    return phase;
  });
  if (!errors.length) {
    const api = phased ? phaseErrors(phases, 'phases') : tierErrors(phases[0].tiers, 'tiers');
    errors.push(...apiFormErrors(api, e));
  }
  if (errors.length) return { errors };
  const compression = v.compression ? { compression: true } : {};
  const base = { lead_bonus_kopecks: leadBonus!, grace_period_hours: grace!, ...compression };
  return {
    program: phased ? { ...base, phases } : { ...base, tiers: phases[0].tiers },
    amount: amount!,
  };
}

/** A phase's tiers from its rows: they end at the first empty row, and a row after it is wrong. */
function tiersOf(
  rows: TierRow[],
  p: number,
  phased: boolean,
  e: FormErrorTexts,
  err: (on: string, field: string, message: string) => void,
): ProgramTier[] {
  const tiers: ProgramTier[] = [];
  let ended = false;
  rows.forEach((row, i) => {
    const on = `p${p}_t${i}`;
    const field = e.tier(phased ? p + 1 : undefined, i + 1, tierName(i));
    const percent = row.percent.trim();
    const fixed = row.fixed.trim();
    if (!percent && !fixed) {
      ended = true;
      if (row.qualify_min.trim() || row.qualify_days.trim()) err(on, field, e.noAmount);
      return;
    }
    if (ended) return err(on, field, e.afterEmpty);
    if (percent && fixed) return err(on, field, e.both);
    const qualify = qualifyOf(row, e, (message) => err(`${on}_q`, field, message));
    if (qualify === null) return;
    const amount = percent ? parsePercent(percent) : parseMoney(fixed);
    if (amount === undefined) return err(on, field, percent ? e.percent : e.money);
    const kind = percent ? { percent_bp: amount } : { fixed_kopecks: amount };
    tiers.push({ tier: tierName(i), ...kind, ...(qualify ? { qualify } : {}) });
  });
  return tiers;
}

/** The row's qualification: undefined when it has none, null when it is wrong (said by `err`). */
function qualifyOf(row: TierRow, e: FormErrorTexts, err: (message: string) => void) {
  const min = row.qualify_min.trim();
  const days = row.qualify_days.trim();
  if (!min && !days) return undefined;
  const kopecks = min ? parseMoney(min) : undefined;
  const window = days ? parseWhole(days, 4) : undefined;
  if (!kopecks) err(e.qualifyMin);
  if (window === undefined || window < 1 || window > 3650) err(e.qualifyDays);
  if (!kopecks || window === undefined || window < 1 || window > 3650) return null;
  return { min_personal_sales_kopecks: kopecks, window_days: window };
}

export interface PreviewRow {
  tier: string;
  /** What the tier pays for the amount (0 when its share rounds to nothing). */
  amount_kopecks: number;
}

/**
 * What each tier earns for a conversion of `amountKopecks` when every tier's member exists, is
 * active and qualifies: the dry run's own cascade (src/conversions/cascade.ts) over a full chain.
 */
export function previewCascade(tiers: readonly ProgramTier[], amountKopecks: number): PreviewRow[] {
  const chain = tiers.map((_, i) => ({ id: `m${i}`, serviceUserId: `u${i}`, isActive: true }));
  // Every member qualifies: the preview leaves the rules out and names them beside the tiers.
  const paid = tiers.map(({ qualify: _q, ...tier }) => tier);
  const shares = new Map(cascade(amountKopecks, paid, chain).map((s) => [s.tier, s.amountKopecks]));
  return tiers.map((t) => ({ tier: t.tier, amount_kopecks: shares.get(t.tier) ?? 0 }));
}

export { FORM_ERRORS, type FormError, type FormErrorTexts } from './program-errors';
