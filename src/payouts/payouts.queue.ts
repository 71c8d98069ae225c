/** The payouts queue: one repeatable job at 00:00 UTC that runs the tenants' scheduled payouts. */
export const PAYOUTS_QUEUE = 'payouts';
export const SCHEDULED_RUNS_JOB = 'scheduled-runs';
export const SCHEDULED_RUNS_CRON = '0 0 * * *';
