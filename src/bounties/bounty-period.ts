const DAY_MS = 24 * 60 * 60 * 1000;

/** An interval [from, to) of instants. */
export interface Span {
  from: Date;
  to: Date;
}

/**
 * How a bounty's period [startsAt, endsAt) is counted (docs/money.md, "Bounties"): the whole UTC
 * days inside it from the daily rollup (`days`, first day included, last excluded; null when no
 * whole day fits), and the parts of days at either end from the conversions themselves (`edges`,
 * each shorter than a day). Together they cover the period exactly once.
 */
export function splitPeriod(
  startsAt: Date,
  endsAt: Date | null,
): { days: { from: string; to: string | null } | null; edges: Span[] } {
  const firstWhole = ceilDay(startsAt);
  const endWhole = endsAt ? floorDay(endsAt) : null;
  if (endsAt && endWhole && endWhole.getTime() <= firstWhole.getTime()) {
    return { days: null, edges: [{ from: startsAt, to: endsAt }] };
  }
  const edges: Span[] = [];
  if (firstWhole.getTime() > startsAt.getTime()) edges.push({ from: startsAt, to: firstWhole });
  if (endsAt && endWhole && endsAt.getTime() > endWhole.getTime()) {
    edges.push({ from: endWhole, to: endsAt });
  }
  return { days: { from: isoDay(firstWhole), to: endWhole ? isoDay(endWhole) : null }, edges };
}

function floorDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function ceilDay(at: Date): Date {
  return new Date(Math.ceil(at.getTime() / DAY_MS) * DAY_MS);
}

const isoDay = (at: Date) => at.toISOString().slice(0, 10);
