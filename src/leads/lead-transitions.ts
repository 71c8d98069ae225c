import type { LeadStatus } from './lead.entity';

/**
 * docs/money.md: `new → processed`, `new → rejected`, `processed → rejected` by request;
 * `converted` only through a conversion (from `new` or `processed`); `converted` and `rejected` are
 * final.
 */
const REQUESTABLE: Record<LeadStatus, readonly LeadStatus[]> = {
  new: ['processed', 'rejected'],
  processed: ['rejected'],
  converted: [],
  rejected: [],
};

/** The statuses a lead may be in for a status request to move it to `to`. */
export function statusesAllowingTransitionTo(to: LeadStatus): LeadStatus[] {
  return (Object.keys(REQUESTABLE) as LeadStatus[]).filter((from) =>
    REQUESTABLE[from].includes(to),
  );
}

export function canRequestTransition(from: LeadStatus, to: LeadStatus): boolean {
  return REQUESTABLE[from].includes(to);
}

/** A conversion may be registered for any lead that was not rejected. */
export function canConvert(status: LeadStatus): boolean {
  return status !== 'rejected';
}
