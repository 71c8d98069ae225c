import type { ProgramPhase } from '../tenants/program';

/** The phase that pays a conversion: the phase, its 1-based number. */
export interface PhaseChoice {
  phase: ProgramPhase;
  number: number;
  /**
   * Where in a limited phase the conversion falls (1-based): its calendar month in a `months`
   * phase, its place among the phase's conversions in a `conversions` phase; absent in a phase
   * for ever.
   */
  position?: number;
}

/** `date` plus `months` calendar months at the same UTC time of day, the day clamped (31 Jan + 1 → 28/29 Feb). */
export function addMonths(date: Date, months: number): Date {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const result = new Date(date);
  result.setUTCFullYear(year, month, Math.min(date.getUTCDate(), lastDay));
  return result;
}

/**
 * docs/money.md §2, "Phases": which phase pays a lead's conversion registered at `at`, given the
 * registration times of the lead's earlier conversions (reversed ones included), oldest first.
 * Phase 1 starts at the lead's first conversion; a phase after a `months` phase starts when that
 * one ends, a phase after a `conversions` phase at the first conversion it pays. Null: past a last
 * phase that has a limit, the conversion pays nothing.
 */
export function phaseOf(
  phases: readonly ProgramPhase[],
  earlier: readonly Date[],
  at: Date,
): PhaseChoice | null {
  const times = [...earlier, at];
  const current = earlier.length;
  let first = 0;
  let start = times[0];
  for (const [index, phase] of phases.entries()) {
    const choice = { phase, number: index + 1 };
    if (phase.months !== undefined) {
      const end = addMonths(start, phase.months);
      if (at < end) {
        let month = 1;
        while (addMonths(start, month) <= at) month++;
        return { ...choice, position: month };
      }
      start = end;
      first = times.findIndex((time) => time >= end);
    } else if (phase.conversions !== undefined) {
      if (current - first < phase.conversions) return { ...choice, position: current - first + 1 };
      first += phase.conversions;
      start = times[first];
    } else {
      return choice;
    }
  }
  return null;
}

/** Why a conversion past the last phase pays nothing (the register answer's `reward_note`). */
export function pastLastPhaseNote(phases: readonly ProgramPhase[]): string {
  const last = phases[phases.length - 1];
  const limit =
    last.months !== undefined ? `${last.months} month(s)` : `${last.conversions} conversion(s)`;
  return `No bonuses: the program's last phase (phase ${phases.length}, ${limit}) has ended for this lead.`;
}
