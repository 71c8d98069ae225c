import { phaseErrors, type Program, tierErrors, withProgramDefaults } from '../../tenants/program';
import {
  fieldName,
  formValues,
  programFromValues,
  type ProgramFormValues,
  valuesFromBody,
  withIntent,
} from './program.form';
import { FORM_ERRORS, translatedApiMessage } from './program-errors';
import { promotionFromValues, promotionValues } from './promotion.form';

/** The body a browser posts for the form as the page renders `v` (program-editor.tsx's names). */
function bodyOf(v: ProgramFormValues): Record<string, string> {
  const body: Record<string, string> = {
    lead_bonus: v.lead_bonus,
    grace_period_hours: v.grace_period_hours,
    amount: v.amount,
  };
  if (v.compression) body.compression = 'on';
  const phased = v.phased || v.phases.length > 1 || !!v.phases[0].limit;
  if (phased) body.phased = '1';
  v.phases.forEach((phase, p) => {
    if (phased) {
      body[fieldName.limit(p)] = phase.limit;
      body[fieldName.count(p)] = phase.count;
    }
    phase.tiers.forEach((row, i) => {
      body[fieldName.percent(p, i)] = row.percent;
      body[fieldName.fixed(p, i)] = row.fixed;
      if (i > 0) {
        body[fieldName.qualifyMin(p, i)] = row.qualify_min;
        body[fieldName.qualifyDays(p, i)] = row.qualify_days;
      }
    });
  });
  return body;
}

const roundTrip = (program: Program) => {
  const parsed = programFromValues(valuesFromBody(bodyOf(formValues(program, 100_000))));
  if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
  return withProgramDefaults(parsed.program);
};

const PHASED: Program = withProgramDefaults({
  lead_bonus_kopecks: 5050,
  grace_period_hours: 48,
  compression: true,
  phases: [
    {
      months: 12,
      tiers: [
        { tier: 'referrer', percent_bp: 2550 },
        {
          tier: 'upline_1',
          fixed_kopecks: 10001,
          qualify: { min_personal_sales_kopecks: 5000050, window_days: 30 },
        },
      ],
    },
    { conversions: 3, tiers: [{ tier: 'referrer', percent_bp: 1500 }] },
    {
      tiers: [
        { tier: 'referrer', percent_bp: 1000 },
        { tier: 'upline_1', percent_bp: 300 },
        {
          tier: 'upline_2',
          percent_bp: 1,
          qualify: { min_personal_sales_kopecks: 1, window_days: 3650 },
        },
      ],
    },
  ],
});

describe('program form (docs/console.md, the program page)', () => {
  it('shows every rule of a program and saves it back unchanged', () => {
    expect(roundTrip(PHASED)).toEqual(PHASED);
    const plain = withProgramDefaults({ tiers: [{ tier: 'referrer', fixed_kopecks: 1 }] });
    expect(roundTrip(plain)).toEqual(plain);
    const onePhase = withProgramDefaults({
      phases: [{ tiers: [{ tier: 'referrer', percent_bp: 5 }] }],
    });
    expect(roundTrip(onePhase)).toEqual(onePhase);
  });

  it('adds and removes phases and tiers by intent', () => {
    const v = formValues(withProgramDefaults({}), 100);
    expect(withIntent(v, 'save')).toBeUndefined();
    const two = withIntent(v, 'add_phase')!;
    expect(two.phased).toBe(true);
    expect(two.phases.map((p) => [p.limit, p.count, p.tiers.length])).toEqual([
      ['months', '12', 2],
      ['', '', 2],
    ]);
    const more = withIntent(two, 'add_tier_1')!;
    expect(more.phases[1].tiers).toHaveLength(3);
    const fewer = withIntent(more, 'remove_tier_1_0')!;
    expect(fewer.phases[1].tiers.map((t) => t.percent)).toEqual(['3', '']);
    expect(withIntent(fewer, 'remove_phase_0')!.phases).toHaveLength(1);
    // The last tier and the last phase stay.
    const one = formValues(
      withProgramDefaults({ tiers: [{ tier: 'referrer', percent_bp: 1 }] }),
      1,
    );
    expect(withIntent(one, 'remove_tier_0_0')!.phases[0].tiers).toHaveLength(1);
    expect(withIntent(one, 'remove_phase_0')!.phases).toHaveLength(1);
  });

  it('says each error at its field, in ru and en', () => {
    const v = formValues(PHASED, 100_000);
    const errorsOf = (change: (v: ProgramFormValues) => void, lang: 'en' | 'ru' = 'ru') => {
      const copy = structuredClone(v);
      change(copy);
      const parsed = programFromValues(valuesFromBody(bodyOf(copy)), FORM_ERRORS[lang]);
      return 'errors' in parsed ? parsed.errors.map((e) => [e.on, e.message]) : [];
    };
    expect(errorsOf((c) => (c.phases[0].limit = ''))).toEqual([
      ['phase_0', 'нужны месяцы или конверсии (бессрочным может быть только последний этап)'],
    ]);
    expect(errorsOf((c) => (c.phases[1].count = '0'), 'en')).toEqual([
      ['phase_1', 'must be a whole number from 1 to 100000'],
    ]);
    expect(errorsOf((c) => (c.phases[2].tiers[1].percent = '99.99'))).toEqual([
      ['phase_2_tiers', 'проценты всех уровней вместе больше 100 %'],
    ]);
    expect(errorsOf((c) => (c.phases[0].tiers[1].qualify_days = '3651'))).toEqual([
      ['p0_t1_q', FORM_ERRORS.ru.qualifyDays],
    ]);
    expect(errorsOf((c) => (c.phases[1].tiers[0].percent = 'abc'))).toEqual([
      ['p1_t0', FORM_ERRORS.ru.percent],
    ]);
    expect(errorsOf((c) => (c.lead_bonus = '1,234'))).toEqual([
      ['lead_bonus', FORM_ERRORS.ru.money],
    ]);
    // A referrer's qualification only a crafted post can send: the API's rule says it.
    const body = {
      ...bodyOf(v),
      [fieldName.qualifyMin(0, 0)]: '1',
      [fieldName.qualifyDays(0, 0)]: '1',
    };
    const parsed = programFromValues(valuesFromBody(body), FORM_ERRORS.en);
    expect('errors' in parsed && parsed.errors).toEqual([
      { on: 'p0_t0', field: 'Phase 1, tier 1 (referrer)', message: FORM_ERRORS.en.referrerQualify },
    ]);
    // One phase too many, and a tier too many (the API's limits).
    const many = structuredClone(v);
    many.phases = Array.from({ length: 13 }, () => ({ ...structuredClone(v.phases[1]) }));
    const tooMany = programFromValues(valuesFromBody(bodyOf(many)), FORM_ERRORS.ru);
    expect('errors' in tooMany && tooMany.errors[0]).toMatchObject({
      on: 'phases',
      message: 'не больше 12 этапов',
    });
    const long = structuredClone(v);
    long.phases[1].tiers = Array.from({ length: 22 }, () => ({
      percent: '0',
      fixed: '',
      qualify_min: '',
      qualify_days: '',
    }));
    const tooLong = programFromValues(valuesFromBody(bodyOf(long)), FORM_ERRORS.en);
    expect('errors' in tooLong && tooLong.errors[0]).toMatchObject({
      on: 'phase_1_tiers',
      message: 'at most 21 tiers',
    });
  });

  it('has every message of the API’s program validation in both languages', () => {
    const made = [
      ...tierErrors([]),
      ...tierErrors(
        Array.from({ length: 22 }, (_, i) => ({
          tier: i ? `upline_${i}` : 'referrer',
          percent_bp: 0,
        })),
      ),
      ...tierErrors([{ tier: 'upline_1', percent_bp: 1, fixed_kopecks: 1 } as never]),
      ...tierErrors([
        {
          tier: 'referrer',
          percent_bp: 10001,
          qualify: { min_personal_sales_kopecks: 1, window_days: 1 },
        },
      ]),
      ...tierErrors([null as never]),
      ...phaseErrors([]),
      ...phaseErrors(Array.from({ length: 13 }, () => ({ months: 0, conversions: 1, tiers: [] }))),
      ...phaseErrors([{ tiers: [] }, { tiers: 'x' as never }]),
    ];
    const messages = new Set(made.map((e) => e.message));
    expect(messages.size).toBeGreaterThanOrEqual(12);
    for (const message of messages) {
      const en = translatedApiMessage(message, FORM_ERRORS.en);
      const ru = translatedApiMessage(message, FORM_ERRORS.ru);
      expect([message, en !== undefined, ru !== undefined && ru !== en]).toEqual([
        message,
        true,
        true,
      ]);
    }
  });

  it('reads a group’s promotion, with the Admin API’s bounds', () => {
    const e = FORM_ERRORS.en;
    const stored = { group_id: 'grp_1', min_revenue_kopecks: 100050, window_days: 30 };
    expect(promotionFromValues(promotionValues(stored), e)).toEqual({ promote_to: stored });
    expect(promotionFromValues(promotionValues(null), e)).toEqual({ promote_to: null });
    const wrong = promotionFromValues(
      { target: 'grp_1', min_conversions: '', min_revenue: '', window_days: '3661' },
      e,
    );
    expect('errors' in wrong && wrong.errors.map((x) => x.on)).toEqual([
      'promote_conversions',
      'promote_days',
    ]);
  });
});
