/** The bonuses queue: one repeatable job that approves bonuses whose grace period has passed. */
export const BONUSES_QUEUE = 'bonuses';
export const APPROVE_DUE_JOB = 'approve-due';
/** Bonuses approved per transaction by the sweep. */
export const SWEEP_BATCH_SIZE = 500;
