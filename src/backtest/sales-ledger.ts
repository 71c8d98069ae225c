const DAY_MS = 86_400_000;

/** The UTC day of `at` as a whole number of days since 1970-01-01. */
export const dayNumber = (at: Date | string): number =>
  Math.floor(new Date(typeof at === 'string' ? `${at}T00:00:00Z` : at).getTime() / DAY_MS);

/**
 * Personal sales as a backtest replays them (docs/money.md §2, "Qualification"): per member, the
 * amounts by UTC day, added in day order, as running totals, so a window's sum is two binary
 * searches however long the window.
 */
export class SalesLedger {
  private readonly members = new Map<string, { days: number[]; totals: number[] }>();

  add(memberId: string, day: number, amountKopecks: number): void {
    let entry = this.members.get(memberId);
    if (!entry) {
      entry = { days: [], totals: [] };
      this.members.set(memberId, entry);
    }
    const last = entry.days.length - 1;
    if (last >= 0 && entry.days[last] === day) {
      entry.totals[last] += amountKopecks;
    } else {
      entry.days.push(day);
      entry.totals.push((last >= 0 ? entry.totals[last] : 0) + amountKopecks);
    }
  }

  /** What the member sold over the `windowDays` UTC days ending with `day` (1: that day alone). */
  sum(memberId: string, windowDays: number, day: number): number {
    const entry = this.members.get(memberId);
    if (!entry) return 0;
    return upTo(entry, day) - upTo(entry, day - windowDays);
  }
}

/** The running total of every day ≤ `day`. */
function upTo(entry: { days: number[]; totals: number[] }, day: number): number {
  let lo = 0;
  let hi = entry.days.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entry.days[mid] <= day) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : entry.totals[lo - 1];
}
