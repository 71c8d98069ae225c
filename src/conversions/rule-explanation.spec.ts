import type { ProgramPhase } from '../tenants/program';
import { explainRule } from './rule-explanation';

const twelveMonths: ProgramPhase = { months: 12, tiers: [{ tier: 'referrer', percent_bp: 1000 }] };

describe('explainRule', () => {
  it("writes SPEC 15's sentence in the tenant's language and number format", () => {
    const facts = {
      amountKopecks: 100_000,
      currency: 'RUB',
      tier: { tier: 'referrer', percent_bp: 1000 },
      phase: { phase: twelveMonths, number: 1, position: 2 },
      compressedFrom: null,
    };
    expect(explainRule(facts, 'en-US')).toBe(
      '10\u00a0% of RUB\u00a01,000.00, month 2 of phase 1 (12 months)',
    );
    expect(explainRule(facts, 'ru-RU')).toBe(
      '10\u00a0% от 1\u00a0000,00\u00a0₽, месяц 2 фазы 1 (12 месяцев)',
    );
  });

  it('names fixed tiers, conversion phases, phases for ever and compression', () => {
    const fixed = { tier: 'upline_1', fixed_kopecks: 5_000 };
    const base = {
      amountKopecks: 100_000,
      currency: 'USD',
      tier: fixed,
      compressedFrom: 'upline_1',
    };
    expect(
      explainRule(
        { ...base, phase: { phase: { conversions: 5, tiers: [] }, number: 2, position: 3 } },
        'en-US',
      ),
    ).toBe('a fixed $50.00, conversion 3 of phase 2 (5 conversions), passed up from upline_1');
    expect(explainRule({ ...base, phase: { phase: { tiers: [] }, number: 3 } }, 'ru-RU')).toBe(
      'фиксированно 50,00\u00a0$, фаза 3 (бессрочно), перешло от уровня upline_1 (компрессия)',
    );
    expect(
      explainRule(
        { ...base, tier: { tier: 'upline_2', percent_bp: 250 }, phase: null, compressedFrom: null },
        'de-DE',
      ),
    ).toBe('2,5\u00a0% of 1.000,00\u00a0$');
  });
});
