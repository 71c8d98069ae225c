/** The risk signals of docs/fraud.md, in the order they are evaluated and shown. */
export const SIGNAL_CODES = [
  'self_referral',
  'duplicate_customer',
  'ip_burst',
  'disposable_email',
  'fast_conversion',
  'amount_outlier',
] as const;
export type SignalCode = (typeof SIGNAL_CODES)[number];

/** One signal that fired: its code and a sentence a staff member understands. */
export interface RiskSignal {
  code: SignalCode;
  detail: string;
}

/** A bonus's review: `flagged` while a signal holds it back, `cleared` once staff approved it. */
export interface BonusReview {
  status: 'flagged' | 'cleared';
  signals: RiskSignal[];
}

/** The signals of `a` and then those of `b` whose code `a` lacks. */
export function mergeSignals(a: readonly RiskSignal[], b: readonly RiskSignal[]): RiskSignal[] {
  const seen = new Set(a.map((s) => s.code));
  return [...a, ...b.filter((s) => !seen.has(s.code))];
}

/** The review a new bonus carries: flagged with the signals, or null when none fired. */
export function reviewFor(signals: readonly RiskSignal[]): BonusReview | null {
  return signals.length ? { status: 'flagged', signals: [...signals] } : null;
}
